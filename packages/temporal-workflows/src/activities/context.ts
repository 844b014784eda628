// What every activity factory is given: the worker's dependencies, its client cache and task queue.
import type { Client } from '@temporalio/client';
import type { CredentialStore, TokenStore } from './clients.ts';
import type { createClientCache } from './clients.ts';
import type { JobStore } from '../stores/job-store.ts';
import type { FeedPolicy } from './feed-policy.ts';
import type { OrderEventsTarget } from '../webhooks/order-types.ts';

export interface ActivityDeps {
  credentials: CredentialStore;
  /** Temporal client for the lanes and auth workflows (entity workflows reached by update). */
  temporal?: Client;
  /** Task queue the entity workflows run on (the worker's). */
  taskQueue?: string;
  /** Jobs' snapshots and outcomes: one store every worker of the deployment opens (stores/job-store.ts). */
  jobStore: JobStore;
  /**
   * What job feeds (paths, URLs, sizes) and SKU map files this worker reads: its own setting, never the
   * job's (feed-policy.ts). Absent: path feeds off, public https URLs only, default limits.
   */
  feedPolicy?: FeedPolicy;
  /** Where order flows send their hand-off and reminders: the operator's setting, never a job's input. */
  orderEvents?: OrderEventsTarget;
  /** OAuth tokens of connected sellers (cross-listers). */
  tokens?: TokenStore;
  /** Receives the activities' clean-up (HTTP connection pools), run by the worker's close(). */
  closers?: (() => Promise<void>)[];
}

export interface ActivityContext {
  deps: ActivityDeps;
  clients: ReturnType<typeof createClientCache>;
  taskQueue: string;
}
