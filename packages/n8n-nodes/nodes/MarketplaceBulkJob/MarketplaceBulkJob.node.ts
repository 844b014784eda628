import { randomUUID } from 'node:crypto';
import {
  NodeApiError,
  NodeConnectionTypes,
  NodeOperationError,
  sleep,
  type IDataObject,
  type IExecuteFunctions,
  type INode,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
  type JsonObject,
} from 'n8n-workflow';
import {
  BULK_OPERATIONS,
  idProblem,
  inlineFeedBytes,
  JOB_MESSAGES,
  SEARCH_ATTRIBUTE_NAMES,
  WORKFLOW_TYPES,
} from '@selling-kit/temporal-workflows/contract';
import { properties } from './description';
import { binaryFeed, concurrentShops, itemsFeed, type FeedFormat, type InlineFeed } from './inlineFeed';
import { listingJson, NEEDS_ATTENTION, readReport } from './report';
import { getShops } from './shops';
import { shipOrderItem } from './shipOrder';
import { jobWorkflowId, TemporalHttp, temporalSettings } from './transport/temporal';

const OPERATIONS: string[] = Object.values(BULK_OPERATIONS);
const FINISHED = new Set(['finished', 'cancelled', 'failed']);

/** A feed as the worker takes it (temporal-workflows' FeedRef): a path or URL, or the text inline. */
type Feed = { path: string; format: FeedFormat } | InlineFeed;

/**
 * Starts a selling-kit bulk job (a Temporal workflow run by the selling-kit worker) and optionally waits
 * for it, through the Temporal server's HTTP API: no SDK and no runtime dependency in the package.
 * Version 2: the feed can be the workflow's own items or a binary file (sent with the job, sealed),
 * shops come from the worker's list, and each operation has its own Job ID field. A job's report — one
 * item per listing — is read by a worker from its job store (report.ts): nothing of the worker's disk
 * is needed here, and no path goes with the job.
 */
export class MarketplaceBulkJob implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace Bulk Job',
    name: 'marketplaceBulkJob',
    icon: { light: 'file:../Marketplace/marketplace.svg', dark: 'file:../Marketplace/marketplace.dark.svg' },
    group: ['transform'],
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{$parameter["operation"]}}',
    description: 'Run a durable bulk listing job on Temporal (selling-kit worker) and report its counts',
    defaults: { name: 'Marketplace Bulk Job' },
    // A tool for AI agents because its credential is always a scoped client key (`selling-kit keys
    // issue --shops …`): the worker refuses any job naming a shop the key was not given, so a steered
    // agent reaches only the shops the operator granted that credential (test/attack/auth-scope).
    // n8n's community-node rules require the property, and its type has no `false`.
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'marketplaceTemporalApi', required: true }],
    properties,
  };

  methods = { loadOptions: { getShops } };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const credentials = await this.getCredentials('marketplaceTemporalApi');
    // The credential's Report Directory is no longer used: reports live in the worker's job store.
    const temporal = new TemporalHttp(this, temporalSettings(this.getNode(), credentials));
    const items = this.getInputData();
    const version = this.getNode().typeVersion;
    const operation = this.getNodeParameter('operation', 0) as string;

    // Input items as the feed: one job for all of them (settings read from the first item).
    if (version >= 2 && operation === 'start' && this.getNodeParameter('feedSource', 0) === 'inputItems') {
      const pairedItem = items.map((_, item) => ({ item }));
      try {
        const feed = itemsFeed(this.getNode(), items);
        const json = await startJob.call(this, 0, temporal, feed);
        // Each listing is an input item: line n is item n − 1 (in every shop of a many-shop job).
        const listings = await listingsOf.call(this, temporal, json, 0, (line) => ({
          item: Math.min(Math.max(line - 1, 0), items.length - 1),
        }));
        if (listings) return [listings];
        return [[{ json: { ...json, items: items.length }, pairedItem }]];
      } catch (error) {
        if (this.continueOnFail()) return [[{ json: { error: (error as Error).message }, pairedItem }]];
        throw asNodeError(this.getNode(), error, 0);
      }
    }

    const out: INodeExecutionData[] = [];
    for (let i = 0; i < items.length; i++) {
      try {
        if (operation === 'report') {
          out.push(...(await reportItems.call(this, temporal, requiredJobId.call(this, i), i)));
          continue;
        }
        if (operation === 'shipOrder') {
          out.push({ json: await shipOrderItem.call(this, temporal, i), pairedItem: { item: i } });
          continue;
        }
        const json =
          operation === 'start'
            ? await startJob.call(this, i, temporal, await feedOf.call(this, i, version))
            : await progressOf.call(this, temporal, requiredJobId.call(this, i), i);
        const listings =
          operation === 'start'
            ? await listingsOf.call(this, temporal, json, i, () => ({ item: i }))
            : undefined;
        if (listings) out.push(...listings);
        else out.push({ json, pairedItem: { item: i } });
      } catch (error) {
        if (this.continueOnFail()) {
          out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
          continue;
        }
        throw asNodeError(this.getNode(), error, i);
      }
    }
    return [out];
  }
}

function asNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  // The message given explicitly: n8n's wrapper leaves it empty for some raw errors (a TLS failure).
  const message = error instanceof Error ? error.message : String(error);
  return new NodeOperationError(node, error instanceof Error ? error : message, { itemIndex, message });
}

function requiredJobId(this: IExecuteFunctions, i: number): string {
  const jobId = String(this.getNodeParameter('jobId', i, '') ?? '').trim();
  const what = this.getNodeParameter('operation', i) === 'report' ? 'the report' : 'progress';
  if (!jobId)
    throw new NodeOperationError(this.getNode(), `Job ID: is required to get ${what}`, { itemIndex: i });
  const bad = idProblem('Job ID', jobId);
  if (bad) throw new NodeOperationError(this.getNode(), bad, { itemIndex: i });
  return jobId;
}

/** Get Report: one item per listing of the job's report (only those needing attention, if asked). */
async function reportItems(
  this: IExecuteFunctions,
  temporal: TemporalHttp,
  jobId: string,
  i: number,
): Promise<INodeExecutionData[]> {
  const attention = this.getNodeParameter('needsAttention', i, false) as boolean;
  const lines = await readReport(temporal, this.getNode(), jobId, i);
  return lines
    .filter((l) => !attention || NEEDS_ATTENTION.has(l.status))
    .map((l) => ({ json: listingJson(jobId, l), pairedItem: { item: i } }));
}

/**
 * Start Job that waited with Output "One Item per Listing": the ended job's report, an item per listing
 * (paired as `paired` says). Undefined when the job's counts are the output (asked, or it has not ended).
 */
async function listingsOf(
  this: IExecuteFunctions,
  temporal: TemporalHttp,
  summary: IDataObject,
  i: number,
  paired: (line: number) => { item: number },
): Promise<INodeExecutionData[] | undefined> {
  if (this.getNode().typeVersion < 2 || !(this.getNodeParameter('wait', i, false) as boolean))
    return undefined;
  if (this.getNodeParameter('waitOutput', i, 'counts') !== 'listings') return undefined;
  if (summary.waitedOut || !FINISHED.has(String(summary.state))) return undefined;
  const jobId = String(summary.jobId);
  // The job's shops are the ones it was started for (item i's, as startJob read them).
  const lines = await readReport(temporal, this.getNode(), jobId, i, shopsOf.call(this, i));
  return lines.map((l) => ({ json: listingJson(jobId, l), pairedItem: paired(l.line) }));
}

/** Item i's feed: a path or URL (version 1, or File Path or URL), or its binary file. */
async function feedOf(this: IExecuteFunctions, i: number, version: number): Promise<Feed> {
  const format = this.getNodeParameter('format', i, 'csv') as FeedFormat;
  if (version >= 2 && this.getNodeParameter('feedSource', i) === 'binary') {
    const field = (this.getNodeParameter('binaryPropertyName', i, 'data') as string).trim();
    const binary = this.helpers.assertBinaryData(i, field);
    const bytes = await this.helpers.getBinaryDataBuffer(i, field);
    return binaryFeed(this.getNode(), bytes, binary.fileName ?? field, format, i);
  }
  const path = (this.getNodeParameter('feed', i) as string).trim();
  if (!path) throw new NodeOperationError(this.getNode(), 'Feed: is required', { itemIndex: i });
  return { path, format };
}

/** Shop names: a list (version 2) or comma-separated text (version 1, or an expression). */
function shopsOf(this: IExecuteFunctions, i: number): string[] {
  const value = this.getNodeParameter('shops', i) as string | string[];
  const names = Array.isArray(value) ? value : String(value ?? '').split(',');
  return names.map((s) => String(s).trim()).filter(Boolean);
}

async function startJob(
  this: IExecuteFunctions,
  i: number,
  temporal: TemporalHttp,
  feed: Feed,
): Promise<IDataObject> {
  const shops = shopsOf.call(this, i);
  const operation = this.getNodeParameter('jobOperation', i) as string;
  if (shops.length === 0)
    throw new NodeOperationError(this.getNode(), 'Shops: name at least one shop', { itemIndex: i });
  if (!OPERATIONS.includes(operation))
    throw new NodeOperationError(this.getNode(), `What To Do: "${operation}" is not an operation`, {
      itemIndex: i,
    });
  const jobId =
    String(this.getNodeParameter('jobId', i, '') ?? '').trim() ||
    `n8n-${this.getExecutionId?.() ?? 'run'}-${i}-${Math.random().toString(36).slice(2, 8)}`;
  const refs = shops.map((shopId) => ({ shopId, credentialRef: shopId }));
  // The job contract's id rule (the worker refuses a bad id too): nothing starts.
  const badId = idProblem('Job ID', jobId) ?? shops.map((s) => idProblem('Shop', s)).find(Boolean);
  if (badId) throw new NodeOperationError(this.getNode(), badId, { itemIndex: i });
  // A start id of its own (BulkJobOptions.startId): the worker runs this signed input once, never a copy.
  const common = { jobId, operation, startId: randomUUID() };
  // Each child of a many-shop job carries an inline feed: fewer start at once (inlineFeed.ts).
  const inline = 'content' in feed ? inlineFeedBytes(feed.content) : 0;
  const input =
    refs.length === 1
      ? { ...common, shop: refs[0], feed }
      : { ...common, shops: refs, feed, ...(inline ? { maxConcurrentShops: concurrentShops(inline) } : {}) };
  const workflowType = refs.length === 1 ? WORKFLOW_TYPES.bulkListing : WORKFLOW_TYPES.multiShopJob;
  const searchAttributes: Record<string, string> = {
    [SEARCH_ATTRIBUTE_NAMES.jobId]: jobId,
    [SEARCH_ATTRIBUTE_NAMES.operation]: operation,
  };
  if (refs.length === 1) searchAttributes[SEARCH_ATTRIBUTE_NAMES.shop] = shops[0]!;
  const started = await temporal.start(jobWorkflowId(jobId), workflowType, input, { searchAttributes });
  if (started.statusCode >= 300)
    throw new NodeApiError(this.getNode(), (started.body ?? {}) as JsonObject, {
      itemIndex: i,
      httpCode: String(started.statusCode),
      message: `Temporal refused to start job ${jobId}: ${(started.body as { message?: string })?.message ?? started.statusCode}`,
    });
  const waitByDefault = this.getNode().typeVersion < 2;
  if (!(this.getNodeParameter('wait', i, waitByDefault) as boolean))
    return { jobId, state: 'started', shops, operation };
  const deadline = Date.now() + (this.getNodeParameter('maxWaitMinutes', i, 60) as number) * 60_000;
  let last: IDataObject = { jobId, state: 'started' };
  for (;;) {
    await sleep(1000);
    const status = await temporal.status(jobWorkflowId(jobId));
    last = await progressOf.call(this, temporal, jobId, i).catch(() => last);
    // A job that failed before it could answer (its input refused by the worker): the failure says why.
    if (status.status === 'WORKFLOW_EXECUTION_STATUS_FAILED' && !FINISHED.has(String(last.state))) {
      const closed = await temporal.closed(jobWorkflowId(jobId), '', 1);
      return { ...last, state: 'failed', error: closed.message ?? 'failed' };
    }
    if (status.status !== 'WORKFLOW_EXECUTION_STATUS_RUNNING' || FINISHED.has(String(last.state)))
      return last;
    if (Date.now() > deadline) return { ...last, waitedOut: true };
  }
}

async function progressOf(
  this: IExecuteFunctions,
  temporal: TemporalHttp,
  jobId: string,
  i: number,
): Promise<IDataObject> {
  const answer = await temporal.query(jobWorkflowId(jobId), JOB_MESSAGES.progressQuery);
  if (answer.statusCode >= 300)
    throw new NodeApiError(this.getNode(), { message: answer.message ?? '' } as JsonObject, {
      itemIndex: i,
      httpCode: String(answer.statusCode),
      message: `No progress for job ${jobId}: ${answer.message ?? answer.statusCode}`,
    });
  return { jobId, ...(answer.value as IDataObject) };
}
