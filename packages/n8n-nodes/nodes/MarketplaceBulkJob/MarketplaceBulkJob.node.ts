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
import { jobWorkflowId, TemporalHttp } from './transport/temporal';

const OPERATIONS = ['create', 'upsert', 'update', 'patch', 'delete', 'mark_as_sold'];
const FINISHED = new Set(['finished', 'cancelled', 'failed']);

/**
 * Starts a selling-kit bulk job (a Temporal workflow run by the selling-kit worker) and optionally waits
 * for it, through the Temporal server's HTTP API: no SDK and no runtime dependency in the package.
 */
export class MarketplaceBulkJob implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace Bulk Job',
    name: 'marketplaceBulkJob',
    icon: { light: 'file:../Marketplace/marketplace.svg', dark: 'file:../Marketplace/marketplace.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"]}}',
    description: 'Run a durable bulk listing job on Temporal (selling-kit worker) and report its counts',
    defaults: { name: 'Marketplace Bulk Job' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'marketplaceTemporalApi', required: true }],
    properties: [
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        options: [
          {
            name: 'Start Job',
            value: 'start',
            action: 'Start a bulk job',
            description: 'Start a job over a feed',
          },
          {
            name: 'Get Progress',
            value: 'progress',
            action: 'Get the progress of a job',
            description: 'Done, failed, pending, rate and ETA',
          },
        ],
        default: 'start',
      },
      {
        displayName: 'Feed',
        name: 'feed',
        type: 'string',
        required: true,
        default: '',
        placeholder: '/data/feeds/listings.csv',
        description: 'A CSV, JSON or NDJSON file path on the worker, or an http(s) URL',
        displayOptions: { show: { operation: ['start'] } },
      },
      {
        displayName: 'Feed Format',
        name: 'format',
        type: 'options',
        options: [
          { name: 'CSV', value: 'csv' },
          { name: 'JSON', value: 'json' },
          { name: 'NDJSON', value: 'ndjson' },
        ],
        default: 'csv',
        displayOptions: { show: { operation: ['start'] } },
      },
      {
        displayName: 'Shops',
        name: 'shops',
        type: 'string',
        required: true,
        default: '',
        placeholder: 'shop-a, shop-b',
        description: "Comma-separated shop names as the worker's credential store knows them",
        displayOptions: { show: { operation: ['start'] } },
      },
      {
        displayName: 'What To Do',
        name: 'jobOperation',
        type: 'options',
        options: [
          { name: 'Create', value: 'create' },
          {
            name: 'Create or Update',
            value: 'upsert',
            description: 'Create a new record, or update the current one if it already exists (upsert)',
          },
          { name: 'Delete', value: 'delete' },
          { name: 'Full Update', value: 'update' },
          { name: 'Mark as Sold', value: 'mark_as_sold' },
          { name: 'Patch', value: 'patch' },
        ],
        default: 'create',
        displayOptions: { show: { operation: ['start'] } },
      },
      {
        displayName: 'Job ID',
        name: 'jobId',
        type: 'string',
        default: '',
        description: 'Leave empty for a generated one (start); required to get progress',
      },
      {
        displayName: 'Wait for Completion',
        name: 'wait',
        type: 'boolean',
        default: true,
        description: 'Whether to wait until the job ends and return its final counts',
        displayOptions: { show: { operation: ['start'] } },
      },
      {
        displayName: 'Max Wait (Minutes)',
        name: 'maxWaitMinutes',
        type: 'number',
        typeOptions: { minValue: 1 },
        default: 60,
        displayOptions: { show: { operation: ['start'], wait: [true] } },
      },
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const credentials = await this.getCredentials('marketplaceTemporalApi');
    const codecKey = String(credentials.codecKey ?? '');
    const key = codecKey ? Buffer.from(codecKey, 'base64') : undefined;
    if (key && key.length !== 32)
      throw new NodeOperationError(this.getNode(), 'Codec Key: must be the base64 of 32 bytes (AES-256)');
    const temporal = new TemporalHttp(this, {
      url: String(credentials.url).replace(/\/+$/, ''),
      namespace: String(credentials.namespace || 'default'),
      taskQueue: String(credentials.taskQueue || 'selling-kit'),
      key,
    });
    const out: INodeExecutionData[] = [];
    const items = this.getInputData();
    for (let i = 0; i < items.length; i++) {
      try {
        const operation = this.getNodeParameter('operation', i) as string;
        const json =
          operation === 'start'
            ? await startJob.call(this, i, temporal, String(credentials.reportDir))
            : await progressOf.call(this, temporal, requiredJobId.call(this, i), i);
        out.push({ json, pairedItem: { item: i } });
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
  return new NodeOperationError(node, error as Error, { itemIndex });
}

function requiredJobId(this: IExecuteFunctions, i: number): string {
  const jobId = (this.getNodeParameter('jobId', i, '') as string).trim();
  if (!jobId)
    throw new NodeOperationError(this.getNode(), 'Job ID: is required to get progress', { itemIndex: i });
  return jobId;
}

async function startJob(
  this: IExecuteFunctions,
  i: number,
  temporal: TemporalHttp,
  reportDir: string,
): Promise<IDataObject> {
  const feedPath = (this.getNodeParameter('feed', i) as string).trim();
  const shops = (this.getNodeParameter('shops', i) as string)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const operation = this.getNodeParameter('jobOperation', i) as string;
  if (!feedPath) throw new NodeOperationError(this.getNode(), 'Feed: is required', { itemIndex: i });
  if (shops.length === 0)
    throw new NodeOperationError(this.getNode(), 'Shops: name at least one shop', { itemIndex: i });
  if (!OPERATIONS.includes(operation))
    throw new NodeOperationError(this.getNode(), `What To Do: "${operation}" is not an operation`, {
      itemIndex: i,
    });
  const jobId =
    (this.getNodeParameter('jobId', i, '') as string).trim() ||
    `n8n-${this.getExecutionId?.() ?? 'run'}-${i}-${Math.random().toString(36).slice(2, 8)}`;
  const feed = { path: feedPath, format: this.getNodeParameter('format', i) as string };
  const refs = shops.map((shopId) => ({ shopId, credentialRef: shopId }));
  const common = { jobId, operation, reportDir };
  const input = refs.length === 1 ? { ...common, shop: refs[0], feed } : { ...common, shops: refs, feed };
  const workflowType = refs.length === 1 ? 'bulkListingWorkflow' : 'multiShopJobWorkflow';
  const attributes: Record<string, string> = { SellingKitJobId: jobId, SellingKitOperation: operation };
  if (refs.length === 1) attributes.SellingKitShop = shops[0]!;
  const started = await temporal.start(jobWorkflowId(jobId), workflowType, input, attributes);
  if (started.statusCode >= 300)
    throw new NodeApiError(this.getNode(), (started.body ?? {}) as JsonObject, {
      itemIndex: i,
      httpCode: String(started.statusCode),
      message: `Temporal refused to start job ${jobId}: ${(started.body as { message?: string })?.message ?? started.statusCode}`,
    });
  if (!(this.getNodeParameter('wait', i, true) as boolean))
    return { jobId, state: 'started', shops, operation };
  const deadline = Date.now() + (this.getNodeParameter('maxWaitMinutes', i, 60) as number) * 60_000;
  let last: IDataObject = { jobId, state: 'started' };
  for (;;) {
    await sleep(1000);
    const status = await temporal.status(jobWorkflowId(jobId));
    last = await progressOf.call(this, temporal, jobId, i).catch(() => last);
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
  const answer = await temporal.query(jobWorkflowId(jobId), 'progress');
  if (answer.statusCode >= 300)
    throw new NodeApiError(this.getNode(), { message: answer.message ?? '' } as JsonObject, {
      itemIndex: i,
      httpCode: String(answer.statusCode),
      message: `No progress for job ${jobId}: ${answer.message ?? answer.statusCode}`,
    });
  return { jobId, ...(answer.value as IDataObject) };
}
