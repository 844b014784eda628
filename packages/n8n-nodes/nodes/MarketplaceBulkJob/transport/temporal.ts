// The Temporal server's HTTP API (grpc-gateway, `/api/v1/namespaces/...`): start a job workflow, read its
// status, ask its progress. Plain HTTP through n8n's helper — no Temporal SDK, no runtime dependency.
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { decodeValue, encodeValue, type JsonPayload } from './codec';

export interface TemporalSettings {
  url: string;
  namespace: string;
  taskQueue: string;
  key?: Buffer;
}

interface HttpAnswer {
  statusCode: number;
  body: unknown;
}

/** The worker's workflow ids and types (temporal-workflows: client.ts, workflows/). */
export const jobWorkflowId = (jobId: string) => `bulk:${jobId}`;

export class TemporalHttp {
  private readonly ctx: IExecuteFunctions;
  private readonly settings: TemporalSettings;

  constructor(ctx: IExecuteFunctions, settings: TemporalSettings) {
    this.ctx = ctx;
    this.settings = settings;
  }

  private async call(method: IHttpRequestMethods, path: string, body?: IDataObject): Promise<HttpAnswer> {
    const { url, namespace } = this.settings;
    const res = (await this.ctx.helpers.httpRequestWithAuthentication.call(
      this.ctx,
      'marketplaceTemporalApi',
      {
        method,
        url: `${url}/api/v1/namespaces/${encodeURIComponent(namespace)}${path}`,
        body,
        json: true,
        returnFullResponse: true,
        ignoreHttpStatusErrors: true,
      },
    )) as HttpAnswer;
    return res;
  }

  /** Starts the workflow; answers the run id, or the server's message (e.g. the id is taken). */
  async start(
    workflowId: string,
    workflowType: string,
    input: unknown,
    searchAttributes: Record<string, string>,
  ) {
    const res = await this.call('POST', `/workflows/${encodeURIComponent(workflowId)}`, {
      workflowId,
      workflowType: { name: workflowType },
      taskQueue: { name: this.settings.taskQueue },
      // A job id names one job and its report: never run it twice.
      workflowIdReusePolicy: 'WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE',
      input: { payloads: [encodeValue(input, this.settings.key)] } as unknown as IDataObject,
      searchAttributes: { indexedFields: searchAttributes },
    });
    return res;
  }

  async status(workflowId: string): Promise<{ statusCode: number; status?: string; message?: string }> {
    const res = await this.call('GET', `/workflows/${encodeURIComponent(workflowId)}`);
    const body = res.body as { workflowExecutionInfo?: { status?: string }; message?: string };
    return {
      statusCode: res.statusCode,
      status: body?.workflowExecutionInfo?.status,
      message: body?.message,
    };
  }

  /** A query's answer, decoded (the worker must be running to answer). */
  async query(
    workflowId: string,
    queryType: string,
  ): Promise<{ statusCode: number; value?: unknown; message?: string }> {
    const res = await this.call('POST', `/workflows/${encodeURIComponent(workflowId)}/query/${queryType}`, {
      query: { queryType },
    });
    const body = res.body as { queryResult?: unknown; message?: string };
    if (res.statusCode >= 300) return { statusCode: res.statusCode, message: body?.message };
    const result = body.queryResult as unknown[] | { payloads?: unknown[] } | undefined;
    const first = Array.isArray(result) ? result[0] : result?.payloads?.[0];
    return { statusCode: res.statusCode, value: decodeAny(first, this.settings.key) };
  }
}

/** The HTTP API shows json/plain payloads as their value and others (sealed ones) as payload objects. */
function decodeAny(item: unknown, key?: Buffer): unknown {
  const p = item as JsonPayload | undefined;
  if (
    p &&
    typeof p === 'object' &&
    p.metadata &&
    typeof p.metadata.encoding === 'string' &&
    typeof p.data === 'string'
  )
    return decodeValue(p, key);
  return item;
}
