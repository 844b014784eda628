// Selling API clients for activities, one per shop credential, kept for the worker's life. The workflow
// owns pacing, retries and verification, so these clients make ONE attempt: no client-side pacing, no
// retries, a 429 handed back with its Retry-After.
//
// Secrets stay in the worker: a job names its credential (`credentialRef`); API keys come from the
// worker's credential store, OAuth tokens from its token store. An OAuth seller's 401 asks the seller's
// auth workflow for a refresh (one in flight per seller across every worker), then replays once.
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import {
  createClient,
  ReauthorizationRequiredError,
  type AuthProvider,
  type SellingClient,
} from '@selling-kit/api-client';
import { refreshUpdate, sellerAuthWorkflow, sellerAuthWorkflowId } from '../workflows/seller-auth.ts';
import type { ShopRef } from '../types.ts';

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
  /** Bumped by each refresh (the seller's auth workflow counts them). */
  version?: number;
}
export interface TokenStore {
  get(ref: string): SellerTokens | undefined | Promise<SellerTokens | undefined>;
  /** Called with the rotated pair BEFORE it is used: the old refresh token no longer works. */
  set(ref: string, tokens: SellerTokens): void | Promise<void>;
}

export interface ClientDeps {
  credentials: CredentialStore;
  tokens?: TokenStore;
  temporal?: Client;
  taskQueue?: string;
}

/** One attempt per call: the workflow decides what happens next. */
const ONE_ATTEMPT = {
  pacing: false as const,
  retry: { maxRetries: 0, maxRateLimitRetries: 0 },
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
    const handle = await temporal.workflow.start(sellerAuthWorkflow, {
      workflowId: sellerAuthWorkflowId(this.shop.shopId),
      taskQueue: this.deps.taskQueue ?? 'selling-kit',
      args: [{ sellerId: this.shop.shopId, tokenRef: this.shop.credentialRef }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    const state = await handle.executeUpdate(refreshUpdate, { args: [{ seenVersion }] });
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

export function createClientCache(deps: ClientDeps) {
  const clients = new Map<string, SellingClient>();
  return {
    async clientFor(shop: ShopRef): Promise<SellingClient> {
      const key = `${shop.auth ?? 'api_key'}:${shop.credentialRef}:${shop.shopId}`;
      let client = clients.get(key);
      if (client) return client;
      if (shop.auth === 'oauth') {
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
      } else {
        const cred = deps.credentials(shop.credentialRef);
        if (!cred)
          throw ApplicationFailure.nonRetryable(
            `no credential named "${shop.credentialRef}" in the worker's credential store`,
            'UnknownCredential',
          );
        client = createClient({ baseUrl: cred.baseUrl, apiKey: cred.apiKey, ...ONE_ATTEMPT });
      }
      clients.set(key, client);
      return client;
    },
    /** The OAuth application a shop's requests count against (its client id), if any. */
    async appOf(shop: ShopRef): Promise<string | undefined> {
      if (shop.auth !== 'oauth') return undefined;
      return (await deps.tokens?.get(shop.credentialRef))?.clientId;
    },
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
      clients.clear();
    },
  };
}
