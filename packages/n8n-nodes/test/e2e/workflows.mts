// Workflows the end-to-end tests import into n8n (public API shape: name, nodes, connections, settings),
// and how a test publishes one started by a webhook and runs it.
import { randomUUID } from 'node:crypto';
import { DEMO } from '@selling-kit/simulator';
import { FEED_HEADER, feedRow } from '@selling-kit/temporal-workflows/testing';
import { PACKAGE_NAME, type E2eSuite, type Execution, type N8nClient } from './harness.mts';

export const TRIGGER_TYPE = `${PACKAGE_NAME}.marketplaceTrigger`;
export const ACTION_TYPE = `${PACKAGE_NAME}.marketplace`;
export const BULK_TYPE = `${PACKAGE_NAME}.marketplaceBulkJob`;

type Credentials = Record<string, { id: string; name: string }>;

export interface NodeSpec {
  name: string;
  type: string;
  parameters: Record<string, unknown>;
  credentials?: Credentials;
  typeVersion?: number;
  webhookId?: string;
  /** Error handling of the node: 'continueRegularOutput' is the editor's "On Error: Continue". */
  onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

const settings = {
  executionOrder: 'v1',
  saveDataSuccessExecution: 'all',
  saveDataErrorExecution: 'all',
  saveManualExecutions: true,
};

/** A linear workflow: each node feeds the next. */
export function chain(name: string, specs: NodeSpec[]): Record<string, unknown> {
  const nodes = specs.map((s, i) => ({
    id: randomUUID(),
    name: s.name,
    type: s.type,
    typeVersion: s.typeVersion ?? 1,
    position: [i * 240, 0],
    parameters: s.parameters,
    ...(s.credentials ? { credentials: s.credentials } : {}),
    ...(s.webhookId ? { webhookId: s.webhookId } : {}),
    ...(s.onError ? { onError: s.onError } : {}),
  }));
  const connections: Record<string, unknown> = {};
  specs.slice(1).forEach((next, i) => {
    connections[specs[i]!.name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
  });
  return { name, nodes, connections, settings };
}

/** n8n's Webhook node answering with the last node's items: how a published workflow is run over HTTP. */
export function webhookStart(path: string): NodeSpec {
  return {
    name: 'Start',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2,
    webhookId: randomUUID(),
    parameters: {
      httpMethod: 'POST',
      path,
      responseMode: 'lastNode',
      responseData: 'allEntries',
      options: {},
    },
  };
}

/** A workflow started by a Webhook node at a fresh path, then `specs` in a chain. */
export function startedByWebhook(
  name: string,
  specs: NodeSpec[],
): { path: string; workflow: Record<string, unknown> } {
  const path = `e2e-${randomUUID()}`;
  return { path, workflow: chain(name, [webhookStart(path), ...specs]) };
}

export interface PublishedWorkflow {
  id: string;
  /** POSTs `body` to the workflow's webhook; the answer (the last node's items). */
  run(body?: unknown, timeoutMs?: number): Promise<Response>;
}

/** Creates and publishes a workflow started by a Webhook node (resolves once n8n serves the webhook). */
export async function publishStartedByWebhook(
  client: N8nClient,
  name: string,
  specs: NodeSpec[],
): Promise<PublishedWorkflow> {
  const { path, workflow } = startedByWebhook(name, specs);
  const id = await client.createWorkflow(workflow);
  await client.publish(id, path);
  return { id, run: (body: unknown = {}, timeoutMs?: number) => client.callWebhook(path, body, timeoutMs) };
}

/**
 * Publishes a workflow started by a Webhook node and runs it once, for a run that may take minutes
 * (a bulk job waited for): the workflow's id, the webhook's answer and the finished execution.
 */
export async function runOnce(
  client: N8nClient,
  name: string,
  specs: NodeSpec[],
): Promise<{ id: string; response: Response; execution: Execution }> {
  const { id, run } = await publishStartedByWebhook(client, name, specs);
  const response = await run({}, 180_000);
  return { id, response, execution: await client.lastExecution(id, 120_000) };
}

/**
 * How the e2e tests drive the Bulk Job node (nodes/MarketplaceBulkJob/): its credential, from a
 * Temporal server and worker like test/helpers/temporal.mts's stack, and its Start node.
 */
export const BULK = {
  credentialType: 'marketplaceTemporalApi',
  /** The credential of a server and worker (no report folder: reports are read from the worker's job store). */
  credentialData: (
    server: { httpUrl: string; taskQueue: string; clientKey: string; dir: string },
    namespace = 'default',
  ): Record<string, unknown> => ({
    url: server.httpUrl,
    namespace,
    taskQueue: server.taskQueue,
    clientKey: server.clientKey,
    apiKey: '',
  }),
  /** "Bulk Job": Start with Job Operation Create, waiting for the end; `parameters` say the rest. */
  startNode: (
    credential: { id: string; name: string },
    typeVersion: number,
    parameters: Record<string, unknown>,
  ): NodeSpec => ({
    name: 'Bulk Job',
    type: BULK_TYPE,
    typeVersion,
    parameters: { operation: 'start', jobOperation: 'create', wait: true, ...parameters },
    credentials: { marketplaceTemporalApi: credential },
  }),
  /**
   * A Code node emitting the feed rows of `skus` as items, then Bulk Job (version 2) listing them in
   * the demo shop from its input items, as job `jobId`, waiting `maxWaitMinutes` at most.
   */
  inputItemsJob: (
    credential: { id: string; name: string },
    job: {
      skus: string[];
      picture: string;
      jobId: string;
      maxWaitMinutes: number;
      /** What the waiting node returns: the counts (default) or one item per listing. */
      waitOutput?: 'counts' | 'listings';
    },
  ): NodeSpec[] => [
    BULK.feedItemsNode(job.skus, job.picture),
    BULK.startNode(credential, 2, {
      feedSource: 'inputItems',
      shops: ['demo'],
      jobId: job.jobId,
      maxWaitMinutes: job.maxWaitMinutes,
      ...(job.waitOutput ? { waitOutput: job.waitOutput } : {}),
    }),
  ],
  /** A Code node returning one item per feed row: the CSV feed's columns as fields, cells as strings. */
  feedItemsNode: (skus: string[], picture: string): NodeSpec => {
    const names = FEED_HEADER.split(',');
    const rows = skus.map((sku) => {
      const cells = feedRow(sku, { picture }).split(',');
      return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
    });
    return {
      name: 'Listings',
      type: 'n8n-nodes-base.code',
      typeVersion: 2,
      parameters: { jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` },
    };
  },
};

/**
 * How the e2e tests drive the Marketplace action node (nodes/Marketplace/, the other half of the
 * issue): only this block knows its parameter and credential names.
 */
const product = (operation: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  authentication: 'apiKey',
  resource: 'products',
  operation,
  ...extra,
});

export const ACTION = {
  credentialType: 'marketplaceApi',
  credentialData: (baseUrl: string, apiKey: string): Record<string, unknown> => ({
    environment: 'custom',
    baseUrl,
    apiKey,
  }),
  createProduct: (sku: string, listing: Listing): Record<string, unknown> =>
    product('create', {
      newSku: sku,
      description: listing.description,
      priceAmount: listing.price,
      priceCurrency: listing.currency,
      quantity: 1,
      pictureUrls: listing.pictureUrls.join(','),
      department: listing.department,
      productType: listing.productType,
      condition: listing.condition,
      brandName: listing.brand,
      countryCode: listing.countryCode,
      nationalShippingCost: listing.nationalShippingCost,
      additionalFields: '{}',
    }),
  getProduct: (sku: string): Record<string, unknown> => product('get', { productKey: 'sku', sku }),
  /** Get Many: the newest `limit` listings on sale. */
  listProducts: (limit: number): Record<string, unknown> => product('getAll', { returnAll: false, limit }),
  patchProduct: (sku: string, priceAmount: string): Record<string, unknown> =>
    product('patch', {
      productKey: 'sku',
      sku,
      updateFields: { price_amount: priceAmount },
      additionalFields: '{}',
    }),
  markSold: (sku: string): Record<string, unknown> => product('markSold', { productKey: 'sku', sku }),
};

/** The simulator's demo shop as a Marketplace API (key) credential in n8n, named `name`. */
export function demoShopCredential(
  e2e: Pick<E2eSuite, 'client' | 'sim'>,
  name: string,
): Promise<{ id: string; name: string }> {
  return e2e.client.createCredential(
    name,
    ACTION.credentialType,
    ACTION.credentialData(e2e.sim.url, DEMO.apiKey),
  );
}

export interface Listing {
  description: string;
  price: string;
  currency: string;
  pictureUrls: string[];
  department: string;
  productType: string;
  condition: string;
  brand: string;
  countryCode: string;
  nationalShippingCost: string;
}
