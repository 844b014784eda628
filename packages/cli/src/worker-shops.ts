// The shops a job names, as the worker knows them (issue 27 §6): the worker holds the API keys and the
// sellers' tokens, so a client host — `selling-kit bulk`, `schedules create` — asks it (shop-check-client.ts
// in temporal-workflows) which credential a shop has and, before a job, whether the API accepts it.
// With no worker polling there is no one to ask: a shop this host knows (one machine: `dev`, the tests)
// is taken as stored here and the job waits for a worker; any other is a clear "no worker".
import type { Client } from '@temporalio/client';
import {
  checkShop,
  ShopCheckError,
  type ShopCheckResult,
  type ShopRef,
} from '@selling-kit/temporal-workflows';
import type { CliConfig } from './config.ts';
import { CliError, EXIT } from './errors.ts';
import { liveWorkers } from './job-progress.ts';
import { findShop } from './stores.ts';

/** The refs of `shopIds` for a job; `check`: the worker checks each key with the API first. */
export async function jobShops(
  client: Client,
  config: CliConfig,
  shopIds: string[],
  check: boolean,
): Promise<ShopRef[]> {
  const polling = (await liveWorkers(client, config.taskQueue)) > 0;
  const refs: ShopRef[] = [];
  for (const shopId of shopIds) {
    const auth = polling ? (await askWorker(client, config, shopId, check)).auth : knownHere(config, shopId);
    refs.push({ shopId, credentialRef: shopId, auth });
  }
  return refs;
}

/** A shop's credential kind as this host stores it, when no worker can be asked. */
function knownHere(config: CliConfig, shopId: string): 'api_key' | 'oauth' {
  try {
    return findShop(config, shopId).auth;
  } catch (e) {
    if (!(e instanceof CliError) || e.code !== 'unknown_shop') throw e;
    throw new CliError(
      'no_worker',
      `no worker is polling task queue ${config.taskQueue} to ask about shop "${shopId}" (this host holds no key for it): start one with \`selling-kit worker\``,
      EXIT.noWorker,
    );
  }
}

/**
 * What the worker knows of `shopId` (`call`: and whether the API accepts its key): its answer, or the
 * CLI error that says why not. The worker holds the keys; this host needs none (issue 27 §6).
 */
export async function askWorker(
  client: Client,
  config: CliConfig,
  shopId: string,
  call: boolean,
): Promise<Extract<ShopCheckResult, { ok: true }>> {
  let answer: ShopCheckResult;
  try {
    answer = await checkShop(client, { shopId, call }, { taskQueue: config.taskQueue });
  } catch (e) {
    if (!(e instanceof ShopCheckError)) throw e;
    if (e.reason === 'no_worker') throw new CliError('no_worker', e.message, EXIT.noWorker);
    throw new CliError('shop_refused', e.message, EXIT.credentials);
  }
  if (answer.ok) return answer;
  if (answer.code === 'unknown_shop')
    throw new CliError(
      'unknown_shop',
      `unknown shop "${shopId}": ${answer.message}`,
      EXIT.notFound,
      `on the worker's host: \`selling-kit shops add ${shopId} --api-key-stdin\` or \`selling-kit auth login --shop ${shopId}\``,
    );
  throw new CliError(answer.code, answer.message, EXIT.credentials);
}
