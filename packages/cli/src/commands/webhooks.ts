// `selling-kit webhooks serve`: the durable webhook receiver for the stored shops. Each signed
// `v1:order.new` starts the order's delist workflow (the same SKU marked sold on every other shop; a
// SKU mapping file for items whose SKUs differ), each `v1:product.like` — with `--offers-percent` — the
// listing's offers workflow; 2xx only once Temporal has recorded it. An hourly schedule catches the
// sales whose webhook never arrived. The signing secret comes from stdin or an environment variable.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { createClient } from '@selling-kit/api-client';
import {
  createSalesReconciliationSchedule,
  loadSkuMap,
  SkuMapError,
  startWebhookReceiver,
  checkOfferSettings,
  type ConnectedShop,
  type LikerOfferSettings,
  type WebhookReceiver,
} from '@selling-kit/temporal-workflows';
import { action, type Context } from '../context.ts';
import { CliError, EXIT } from '../errors.ts';
import { readSecret } from '../secrets.ts';
import { readShops } from '../stores.ts';
import { connectTemporal } from '../temporal.ts';

/** The schedule `webhooks serve` keeps (one per home: the shops it connects). */
export const SALES_RECONCILIATION_SCHEDULE = 'delist-reconcile';

/**
 * The stored API-key shops (all, or the named ones) with the seller id their webhooks carry, asked once
 * from the API (`GET /shop/`).
 */
export async function connectedShops(config: Context['config'], names?: string[]): Promise<ConnectedShop[]> {
  const stored = readShops(config);
  const wanted = names && names.length > 0 ? names : Object.keys(stored);
  if (wanted.length < 2 && !names?.length)
    throw new CliError(
      'too_few_shops',
      `the delist flow needs at least two connected shops; ${config.credentialsFile} has ${wanted.length}`,
      EXIT.usage,
      'add shops with `selling-kit shops add <name> --api-key-stdin`',
    );
  return Promise.all(
    wanted.map(async (shopId) => {
      const credential = stored[shopId];
      if (!credential)
        throw new CliError(
          'unknown_shop',
          `unknown shop "${shopId}": it has no API key in ${config.home}`,
          EXIT.notFound,
        );
      const client = createClient({
        baseUrl: credential.baseUrl,
        apiKey: credential.apiKey,
        timeoutMs: 10_000,
      });
      try {
        const { id } = await client.shop.get();
        return { shopId, credentialRef: shopId, sellerId: id };
      } catch (e) {
        throw new CliError(
          'credential_check_failed',
          `shop "${shopId}" at ${credential.baseUrl}: ${(e as { code?: string }).code ?? (e as Error).name}`,
          EXIT.credentials,
        );
      } finally {
        await client.close();
      }
    }),
  );
}

/** Creates (or re-creates, with the current shops) the missed-webhook catch-up schedule. */
export async function ensureSalesReconciliation(
  client: Client,
  config: Context['config'],
  shops: ConnectedShop[],
  every: string,
  skuMapPath?: string,
): Promise<void> {
  await client.schedule
    .getHandle(SALES_RECONCILIATION_SCHEDULE)
    .delete()
    .catch(() => undefined);
  await createSalesReconciliationSchedule(
    client,
    SALES_RECONCILIATION_SCHEDULE,
    { shops: shops.map(({ shopId, credentialRef }) => ({ shopId, credentialRef })), skuMapPath },
    { every },
    config.taskQueue,
  );
}

interface ServeOptions {
  port: string;
  host: string;
  path: string;
  shop?: string[];
  secretEnv?: string;
  secretStdin?: boolean;
  skuMap?: string;
  delist: boolean;
  offersPercent?: string;
  offersDelay: string;
  offersMinPercent?: string;
  reconcileEvery: string;
  reconcile: boolean;
  orderFlows?: boolean;
}

const number = (flag: string, value: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    throw new CliError('bad_flag', `${flag} must be a number, got "${value}"`, EXIT.usage);
  return n;
};

async function serve(ctx: Context, opts: ServeOptions): Promise<number> {
  const { config, out } = ctx;
  const port = number('--port', opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError(
      'bad_flag',
      `--port must be an integer between 0 and 65535, got ${opts.port}`,
      EXIT.usage,
    );
  if (!opts.path.startsWith('/'))
    throw new CliError('bad_flag', `--path must start with "/", got "${opts.path}"`, EXIT.usage);
  let offers: LikerOfferSettings | undefined;
  if (opts.offersPercent !== undefined) {
    try {
      offers = checkOfferSettings({
        percentOff: number('--offers-percent', opts.offersPercent),
        delayMs: number('--offers-delay', opts.offersDelay) * 1000,
        ...(opts.offersMinPercent !== undefined
          ? { minPercentOff: number('--offers-min-percent', opts.offersMinPercent) }
          : {}),
      });
    } catch (e) {
      if (e instanceof RangeError) throw new CliError('bad_flag', e.message, EXIT.usage);
      throw e;
    }
  }
  if (!opts.delist && !offers && !opts.orderFlows)
    throw new CliError(
      'bad_flag',
      'nothing to do: --no-delist without --offers-percent or --order-flows',
      EXIT.usage,
    );
  const skuMapPath = opts.skuMap ? resolve(opts.skuMap) : undefined;
  if (skuMapPath) {
    try {
      loadSkuMap(skuMapPath);
    } catch (e) {
      if (e instanceof SkuMapError) throw new CliError(e.code, e.message, EXIT.usage);
      throw e;
    }
  }
  const secret = await readSecret(
    {
      fromStdin: opts.secretStdin,
      fromEnv: opts.secretStdin ? undefined : (opts.secretEnv ?? 'SELLING_KIT_WEBHOOK_SECRET'),
    },
    'webhook signing secret',
  );
  const shops = await connectedShops(config, opts.shop);
  const session = await connectTemporal(config);
  let receiver: WebhookReceiver | undefined;
  try {
    if (opts.delist && opts.reconcile)
      await ensureSalesReconciliation(session.client, config, shops, opts.reconcileEvery, skuMapPath);
    receiver = await startWebhookReceiver({
      client: session.client,
      taskQueue: config.taskQueue,
      secret,
      shops,
      delist: opts.delist,
      skuMapPath,
      offers,
      // Each order's flow (temporal-workflows' order flows): its delist, reminders, mark-as-shipped.
      ...(opts.orderFlows ? { orders: {} } : {}),
      host: opts.host,
      port,
      path: opts.path,
      // One line per delivery on stderr, also with --json (stdout keeps its one document).
      log: (e) =>
        process.stderr.write(
          `${e.status} ${e.eventType ?? '-'} ${e.eventId ?? ''} ${e.action}${e.workflowId ? ` ${e.workflowId}` : ''}${e.reason ? ` (${e.reason})` : ''}\n`,
        ),
    });
    out.result(
      {
        url: receiver.url,
        shops: shops.map((s) => ({ shopId: s.shopId, sellerId: s.sellerId })),
        delist: opts.delist,
        offers: offers ?? null,
        orderFlows: opts.orderFlows === true,
        reconciliation:
          opts.delist && opts.reconcile
            ? { scheduleId: SALES_RECONCILIATION_SCHEDULE, every: opts.reconcileEvery }
            : null,
      },
      () => [
        `webhook receiver listening on ${receiver!.url}`,
        `  shops: ${shops.map((s) => `${s.shopId} (seller ${s.sellerId})`).join(', ')}`,
        `  delist on sale: ${opts.delist ? `on${skuMapPath ? `, SKU map ${skuMapPath}` : ''}` : 'off'}`,
        `  offers to likers: ${offers ? `${offers.percentOff}% off after ${offers.delayMs / 1000} s` : 'off'}`,
        `  order flows: ${opts.orderFlows ? 'on (hand-off, reminders, `selling-kit orders ship`)' : 'off'}`,
        opts.delist && opts.reconcile
          ? `  missed webhooks: schedule "${SALES_RECONCILIATION_SCHEDULE}" every ${opts.reconcileEvery}`
          : '  missed webhooks: no schedule (--no-reconcile)',
        'Ctrl-C stops it',
      ],
    );
    await new Promise<void>((done) => {
      process.once('SIGINT', done);
      process.once('SIGTERM', done);
    });
    return EXIT.ok;
  } finally {
    await receiver?.close();
    await session.close();
  }
}

export function registerWebhooks(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('receive marketplace webhooks: delist on sale, offers to likers');
  webhooks
    .command('serve')
    .description('verify signed webhooks and start the delist / offers workflows (until Ctrl-C)')
    .option('--port <port>', 'port to listen on (0: any free port)', '8787')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--path <path>', 'URL path of the endpoint', '/webhooks')
    .option('--shop <name...>', 'shops to connect (default: every stored API-key shop)')
    .option(
      '--secret-env <name>',
      'environment variable holding the signing secret (default SELLING_KIT_WEBHOOK_SECRET)',
    )
    .option('--secret-stdin', 'read the signing secret from stdin')
    .option('--sku-map <file>', 'JSON mapping of SKUs that differ between shops ([{ "<shop>": "<sku>", … }])')
    .option('--no-delist', 'do not delist on sale')
    .option(
      '--order-flows',
      "run each order's flow: the delist, the hand-off and reminders to the worker's order events endpoint, mark-as-shipped (`orders ship`)",
    )
    .option('--offers-percent <n>', 'send an offer this many percent off to each liker (off unless given)')
    .option('--offers-delay <seconds>', 'wait this long after a like before its offer', '3600')
    .option('--offers-min-percent <n>', "the API's minimum percentage below the price (default 5)")
    .option('--reconcile-every <duration>', 'how often the missed-webhook schedule runs', '1h')
    .option('--no-reconcile', 'do not create the missed-webhook schedule')
    .addHelpText(
      'after',
      `
Examples:
  $ SELLING_KIT_WEBHOOK_SECRET=… selling-kit webhooks serve --port 8787
  $ echo "$SECRET" | selling-kit webhooks serve --secret-stdin --sku-map skus.json
  $ selling-kit webhooks serve --offers-percent 10 --offers-delay 1800`,
    )
    .action(action(serve));
}
