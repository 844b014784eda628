// Selling API clients for activities, one per shop credential, kept for the worker's life. The workflow
// owns pacing, retries and verification, so these clients make ONE attempt: no client-side pacing, no
// retries, a 429 handed back with its Retry-After.
//
// Secrets stay in the worker: a job names its credential (`credentialRef`); API keys come from the
// worker's credential store, OAuth tokens from its token store. An OAuth seller's 401 asks the seller's
// auth workflow for a refresh (one in flight per seller across every worker), then replays once.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import {
  BaseUrlError,
  createClient as createApiClient,
  ReauthorizationRequiredError,
  type AuthProvider,
  type SellingClient,
} from '@selling-kit/api-client';

/**
 * A client, or — for a stored base URL the client refuses (cleartext to a remote host, core
 * base-url.ts) — the job's non-retryable error: retrying could never send the credential safely.
 */
function createClient(options: Parameters<typeof createApiClient>[0]): SellingClient {
  try {
    return createApiClient({ plainHttpHosts: plainHttpHosts(), ...options });
  } catch (e) {
    if (e instanceof BaseUrlError) throw ApplicationFailure.nonRetryable(e.message, 'InsecureBaseUrl');
    throw e;
  }
}
import { DEFAULT_TASK_QUEUE, sellerAuthWorkflowId, WORKFLOW_TYPES } from '../contract.ts';
import type { ShopRef } from '../types.ts';
import { requestMetricsLogger, workerMeter } from '../observability/metrics.ts';
import { requestSpanLogger } from '../observability/tracing.ts';
import { startOrUpdate, type Entity } from './entities.ts';
import { refreshUpdate, type SellerAuthInput } from '../workflows/messages.ts';

/** A direct partner's shop: where the API is and the shop's API key. */
export interface Credential {
  baseUrl: string;
  apiKey: string;
}
export type CredentialStore = (credentialRef: string) => Credential | undefined;

/** A seller's OAuth tokens and the app credentials to refresh them; kept by the worker only. */
export interface SellerTokens {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  /** Set by the store: bumped by every write (a refresh, a new login). 0 or absent before the first. */
  version?: number;
}

/**
 * Where workers keep sellers' tokens, shared by every worker process that uses it (token-store.ts).
 * `get` answers the current value, never a copy this process read earlier: another worker may have
 * rotated the pair, or the seller logged in again. `set` is a compare-and-set on the version.
 */
export interface TokenStore {
  get(ref: string): SellerTokens | undefined | Promise<SellerTokens | undefined>;
  /**
   * Stores `tokens` with the next version (the stored one + 1, whatever `tokens.version` says). With
   * `expectedVersion`, only while the stored version (0 when none) is that one: otherwise nothing is
   * written and the answer is false. A rotated pair is set BEFORE it is used: the old one no longer works.
   */
  set(ref: string, tokens: SellerTokens, expectedVersion?: number): boolean | Promise<boolean>;
}

export interface ClientDeps {
  credentials: CredentialStore;
  tokens?: TokenStore;
  temporal?: Client;
  taskQueue?: string;
}

/**
 * One attempt per call: the workflow decides what happens next. Answers are counted (metrics.ts) and,
 * when the worker traces, each attempt is a span under its activity's (tracing.ts).
 */
/**
 * SPEC GAP #22 (README): host names this worker may reach over plain http besides loopback, comma
 * separated — set only where a simulator runs on a private network (compose's `simulator` profile).
 */
export const PLAIN_HTTP_HOSTS_ENV = 'SELLING_KIT_PLAIN_HTTP_HOSTS';
export const plainHttpHosts = (env: NodeJS.ProcessEnv = process.env) =>
  (env[PLAIN_HTTP_HOSTS_ENV] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

const ONE_ATTEMPT = {
  pacing: false as const,
  logger: requestMetricsLogger(workerMeter, requestSpanLogger()),
  retry: { maxRetries: 0, maxRateLimitRetries: 0 },
  // The client's own verify-before-recreate GET never runs for bulk creates: they pass `verify: false`
  // (bulk-operations.ts), and the workflow verifies by SKU, once per round (test/resilience.test.ts counts
  // the GETs). No re-read of a not-found right after a create either: requests outside the lanes stay few.
  verifyCreate: { delaysMs: [0], readAfterCreateWindowMs: 0 },
  validate: false, // items were checked when the feed was read
};

/**
 * Tokens from the worker's token store; on a 401, one refresh through the seller's auth workflow
 * (`auth:<shopId>`), shared by every caller in this process while it is in flight.
 */
class WorkflowSellerAuth implements AuthProvider {
  readonly identity: string;
  readonly app: string | undefined;
  private inflight: Promise<void> | undefined;
  private last: SellerTokens | undefined;
  private readonly shop: ShopRef;
  private readonly deps: ClientDeps;

  constructor(shop: ShopRef, deps: ClientDeps, first: SellerTokens) {
    this.shop = shop;
    this.deps = deps;
    this.last = first;
    this.identity = `seller:${shop.shopId}`;
    this.app = first.clientId;
  }

  private async tokens(): Promise<SellerTokens> {
    const t = await this.deps.tokens?.get(this.shop.credentialRef);
    if (!t)
      throw new ReauthorizationRequiredError({
        code: 'invalid_grant',
        message: `no tokens named "${this.shop.credentialRef}" in the worker's token store`,
      });
    this.last = t;
    return t;
  }

  async authorization(): Promise<string> {
    return `Bearer ${(await this.tokens()).accessToken}`;
  }

  async unauthorized(sent: string): Promise<boolean> {
    const now = await this.tokens();
    if (sent !== `Bearer ${now.accessToken}`) return true; // refreshed since this request left
    this.inflight ??= this.refresh(now.version ?? 0).finally(() => (this.inflight = undefined));
    await this.inflight;
    return true;
  }

  private async refresh(seenVersion: number): Promise<void> {
    const temporal = this.deps.temporal;
    if (!temporal) throw new Error('OAuth shops need the worker to be given a Temporal client');
    const auth: Entity<[SellerAuthInput]> = {
      workflowType: WORKFLOW_TYPES.sellerAuth,
      start: {
        workflowId: sellerAuthWorkflowId(this.shop.shopId),
        taskQueue: this.deps.taskQueue ?? DEFAULT_TASK_QUEUE,
        args: [{ sellerId: this.shop.shopId, tokenRef: this.shop.credentialRef }],
      },
    };
    const state = await startOrUpdate(temporal, auth, refreshUpdate, [{ seenVersion }]);
    if (state.state === 'reauthorization_required')
      throw new ReauthorizationRequiredError({
        code: 'invalid_grant',
        message: `reauthorization required: ${state.reason ?? 'the seller must authorise the application again'}`,
      });
  }

  secrets(): readonly (string | undefined)[] {
    return [this.last?.accessToken, this.last?.refreshToken, this.last?.clientSecret];
  }
}

/** How long a client replaced by a rotated key stays open: longer than any activity that may hold it. */
const RETIRED_CLIENT_GRACE_MS = 60 * 60_000;

/** Names a credential without holding it: a changed key (or base URL) gives another name. */
const credentialHash = (cred: Credential) =>
  createHash('sha256').update(`${cred.baseUrl}\n${cred.apiKey}`).digest('hex').slice(0, 16);

/**
 * API clients per shop, for the worker's life. An API-key shop's client is keyed by a hash of its
 * credential, looked up on every call: a key rotated in the credential store is used by the next
 * activity. The replaced client is closed after RETIRED_CLIENT_GRACE_MS (or by close()), not at once:
 * an activity still running may be holding it.
 */
export function createClientCache(deps: ClientDeps, options: { retiredGraceMs?: number } = {}) {
  const clients = new Map<string, SellingClient>();
  /** API-key shops: the cache key of the client in use, per shop. */
  const current = new Map<string, string>();
  const retired = new Set<SellingClient>();
  const retire = (client: SellingClient) => {
    retired.add(client);
    const timer = setTimeout(() => {
      retired.delete(client);
      void client.close().catch(() => undefined);
    }, options.retiredGraceMs ?? RETIRED_CLIENT_GRACE_MS);
    timer.unref();
  };
  return {
    async clientFor(shop: ShopRef): Promise<SellingClient> {
      const slot = `${shop.auth ?? 'api_key'}:${shop.credentialRef}:${shop.shopId}`;
      if (shop.auth === 'oauth') {
        // The auth provider reads the token store on every request: rotation needs no new client.
        let client = clients.get(slot);
        if (client) return client;
        const first = await deps.tokens?.get(shop.credentialRef);
        if (!first)
          throw ApplicationFailure.nonRetryable(
            `no tokens named "${shop.credentialRef}" in the worker's token store`,
            'UnknownCredential',
          );
        client = createClient({
          baseUrl: first.baseUrl,
          auth: new WorkflowSellerAuth(shop, deps, first),
          ...ONE_ATTEMPT,
        });
        clients.set(slot, client);
        return client;
      }
      const cred = deps.credentials(shop.credentialRef);
      if (!cred)
        throw ApplicationFailure.nonRetryable(
          `no credential named "${shop.credentialRef}" in the worker's credential store`,
          'UnknownCredential',
        );
      const key = `${slot}:${credentialHash(cred)}`;
      const cached = clients.get(key);
      if (cached) return cached;
      const client = createClient({ baseUrl: cred.baseUrl, apiKey: cred.apiKey, ...ONE_ATTEMPT });
      const previous = current.get(slot);
      if (previous !== undefined && previous !== key) {
        retire(clients.get(previous)!);
        clients.delete(previous);
      }
      clients.set(key, client);
      current.set(slot, key);
      return client;
    },
    /** The OAuth application a shop's requests count against (its client id), if any. */
    async appOf(shop: ShopRef): Promise<string | undefined> {
      if (shop.auth !== 'oauth') return undefined;
      return (await deps.tokens?.get(shop.credentialRef))?.clientId;
    },
    async close() {
      await Promise.all([...clients.values(), ...retired].map((c) => c.close()));
      clients.clear();
      retired.clear();
    },
  };
}
