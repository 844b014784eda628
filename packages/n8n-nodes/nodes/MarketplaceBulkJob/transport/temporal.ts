// The Temporal server's HTTP API (grpc-gateway, `/api/v1/namespaces/...`): start a workflow, read its
// status, ask its progress, wait for a short one's result. Plain HTTP(S) through n8n's helper — no
// Temporal SDK, no runtime dependency. The credential adds the API key and the TLS files to every
// request (its `authenticate`, tls.ts); this side checks them first, so a bad PEM names its field.
import {
  NodeOperationError,
  type ICredentialDataDecryptedObject,
  type IDataObject,
  type IExecuteFunctions,
  type IHttpRequestMethods,
  type IHttpRequestOptions,
  type ILoadOptionsFunctions,
  type INode,
} from 'n8n-workflow';
import {
  bulkWorkflowId,
  DEFAULT_TASK_QUEUE,
  shopDirectoryWorkflowId,
  WORKFLOW_TYPES,
} from '@selling-kit/temporal-workflows/contract';
import { decodeValue, encodeValue, type JsonPayload } from './codec';
import { parseClientCredential, type ClientCredential } from '@selling-kit/temporal-workflows/payload-auth';

/** What a credential still holding the old raw codec key is told. */
export const RAW_CODEC_KEY_REFUSED =
  "the Temporal credential's Codec Key is no longer accepted (the worker takes only signed job input): " +
  'run `selling-kit keys issue --id <name> --shops <shop,…>` where the worker runs, and paste the line it ' +
  'prints into the Client Key field (then empty Codec Key)';
import { tlsFailure, tlsProblem } from './tls';

/** Where the node may talk to Temporal from: a run of the node, or the editor loading options. */
export type TemporalContext = IExecuteFunctions | ILoadOptionsFunctions;

export interface TemporalSettings {
  url: string;
  namespace: string;
  taskQueue: string;
  /** The client credential that seals and signs job inputs; none when the worker does not encrypt. */
  client?: ClientCredential;
  /** Whether the credential has a client certificate (mTLS), for messages. */
  clientCertificate?: boolean;
}

interface HttpAnswer {
  statusCode: number;
  body: unknown;
}

// The worker's workflow ids and types: the job contract (temporal-workflows' contract.ts, no runtime
// import), bundled into the node by esbuild — still no runtime dependency.
export const jobWorkflowId = bulkWorkflowId;
export const SHOP_DIRECTORY_WORKFLOW = WORKFLOW_TYPES.shopDirectory;
export { shopDirectoryWorkflowId };

/** The credential's settings, its client key (`selling-kit keys issue`, or none) and the TLS fields checked. */
export function temporalSettings(node: INode, credentials: ICredentialDataDecryptedObject): TemporalSettings {
  const clientKey = String(credentials.clientKey ?? '').trim();
  // A credential saved before 0.5 holds the worker's raw codec key: never used to sign anything.
  if (!clientKey && String(credentials.codecKey ?? '').trim())
    throw new NodeOperationError(node, RAW_CODEC_KEY_REFUSED);
  let client: ClientCredential | undefined;
  try {
    client = clientKey ? parseClientCredential(clientKey, 'Client Key') : undefined;
  } catch (e) {
    throw new NodeOperationError(node, (e as Error).message);
  }
  const tls = tlsProblem(credentials);
  if (tls) throw new NodeOperationError(node, tls);
  return {
    url: String(credentials.url).replace(/\/+$/, ''),
    namespace: String(credentials.namespace || 'default'),
    taskQueue: String(credentials.taskQueue || DEFAULT_TASK_QUEUE),
    client,
    clientCertificate: !!String(credentials.clientCertificate ?? '').trim(),
  };
}

/** How a start treats an id in use: a job's id is never reused; a lookup joins the run in flight. */
export interface StartOptions {
  searchAttributes?: Record<string, string>;
  /** Join the running execution of this id instead of failing (later ones start afresh). */
  joinRunning?: boolean;
  /** The execution's time limit, e.g. "10s" (none by default). */
  executionTimeout?: string;
}

/** How a workflow ended, read from its close event. */
export interface Closed {
  status: 'completed' | 'failed' | 'timed_out' | 'other';
  value?: unknown;
  message?: string;
}

export class TemporalHttp {
  private readonly ctx: TemporalContext;
  private readonly settings: TemporalSettings;

  constructor(ctx: TemporalContext, settings: TemporalSettings) {
    this.ctx = ctx;
    this.settings = settings;
  }

  get taskQueue(): string {
    return this.settings.taskQueue;
  }

  /**
   * What to do when no worker answers, in the user's words: the developer's command only when the
   * credential points at this machine (a local stack); otherwise the deployment's operator starts one.
   */
  get noWorkerHint(): string {
    let host = '';
    try {
      host = new URL(this.settings.url).hostname;
    } catch {
      // an unparsable URL was refused when the credential was read
    }
    const local = host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.');
    return local
      ? "start one (on this machine: `selling-kit dev`), or check the credential's task queue"
      : "ask whoever runs your selling-kit deployment to start one, or check the credential's task queue";
  }

  private async call(
    method: IHttpRequestMethods,
    path: string,
    body?: IDataObject,
    qs?: IDataObject,
  ): Promise<HttpAnswer> {
    const { url, namespace } = this.settings;
    const options: IHttpRequestOptions = {
      method,
      url: `${url}/api/v1/namespaces/${encodeURIComponent(namespace)}${path}`,
      body,
      qs,
      json: true,
      returnFullResponse: true,
      ignoreHttpStatusErrors: true,
    };
    // Both contexts have the helper; TypeScript cannot call a method of a union of `this` types.
    const helpers = this.ctx.helpers as IExecuteFunctions['helpers'];
    try {
      return (await helpers.httpRequestWithAuthentication.call(
        this.ctx as IExecuteFunctions,
        'marketplaceTemporalApi',
        options,
      )) as HttpAnswer;
    } catch (error) {
      // No answer at all: TLS names the credential's field; otherwise say where the request went.
      const tls = tlsFailure(error, this.settings.clientCertificate === true);
      const e = error as { message?: string; code?: string };
      throw new NodeOperationError(this.ctx.getNode(), error as Error, {
        message:
          tls ?? `Temporal's HTTP API at ${url} did not answer (${e.message || e.code || 'no reason given'})`,
      });
    }
  }

  /** Starts the workflow; answers the run id, or the server's message (e.g. the id is taken). */
  async start(workflowId: string, workflowType: string, input: unknown, options: StartOptions = {}) {
    const res = await this.call('POST', `/workflows/${encodeURIComponent(workflowId)}`, {
      workflowId,
      workflowType: { name: workflowType },
      taskQueue: { name: this.settings.taskQueue },
      ...(options.joinRunning
        ? {
            workflowIdReusePolicy: 'WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE',
            workflowIdConflictPolicy: 'WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING',
          }
        : // A job id names one job and its report: never run it twice.
          { workflowIdReusePolicy: 'WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE' }),
      ...(options.executionTimeout ? { workflowExecutionTimeout: options.executionTimeout } : {}),
      ...(input === undefined
        ? {}
        : {
            input: {
              payloads: [encodeValue(input, this.settings.client, workflowId)],
            } as unknown as IDataObject,
          }),
      ...(options.searchAttributes ? { searchAttributes: { indexedFields: options.searchAttributes } } : {}),
    });
    return res;
  }

  /**
   * Waits for the run to close (the history's close event, long-polled) and reads how it ended; gives
   * up after `polls` long polls (each the server's long-poll interval, about 20 s).
   */
  async closed(workflowId: string, runId: string, polls = 3): Promise<Closed> {
    for (let i = 0; i < polls; i++) {
      const res = await this.call('GET', `/workflows/${encodeURIComponent(workflowId)}/history`, undefined, {
        'execution.runId': runId,
        waitNewEvent: true,
        historyEventFilterType: 'HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT',
      });
      const body = res.body as { history?: { events?: HistoryEvent[] }; message?: string };
      if (res.statusCode >= 300) return { status: 'other', message: body?.message ?? String(res.statusCode) };
      const event = body.history?.events?.[0];
      if (event) return this.closeOf(event);
    }
    return { status: 'other', message: 'the workflow did not close in time' };
  }

  private closeOf(event: HistoryEvent): Closed {
    const type = String(event.eventType ?? '');
    if (type.endsWith('WORKFLOW_EXECUTION_COMPLETED')) {
      const result = event.workflowExecutionCompletedEventAttributes?.result;
      return { status: 'completed', value: decodeAny(firstPayload(result), this.settings.client) };
    }
    if (type.endsWith('WORKFLOW_EXECUTION_TIMED_OUT')) return { status: 'timed_out' };
    if (type.endsWith('WORKFLOW_EXECUTION_FAILED'))
      return {
        status: 'failed',
        message: failureMessage(event.workflowExecutionFailedEventAttributes?.failure, this.settings.client),
      };
    return { status: 'other', message: type.replace(/^EVENT_TYPE_WORKFLOW_EXECUTION_/, '').toLowerCase() };
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

  /**
   * Sends an update and waits for its outcome: the workflow's answer (decoded), or the failure's message (a
   * validator's refusal, the handler's error). `updateId`: the same request again joins the first, which is
   * also how a wait the server cut short (its long-poll) is taken up again.
   */
  async update(
    workflowId: string,
    name: string,
    arg: unknown,
    updateId: string,
    polls = 3,
  ): Promise<{ statusCode: number; value?: unknown; message?: string; failureType?: string }> {
    const path = `/workflows/${encodeURIComponent(workflowId)}/update/${encodeURIComponent(name)}`;
    const request = {
      meta: { updateId, identity: 'n8n' },
      input: { name, args: { payloads: [encodeValue(arg, this.settings.client, workflowId)] } },
    } as unknown as IDataObject;
    for (let i = 0; i < polls; i++) {
      const res = await this.call('POST', path, {
        request,
        waitPolicy: { lifecycleStage: 'UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED' },
      });
      const body = res.body as { outcome?: { success?: unknown; failure?: Failure }; message?: string };
      if (res.statusCode >= 300) return { statusCode: res.statusCode, message: body?.message };
      if (body.outcome?.failure)
        return {
          statusCode: res.statusCode,
          message: failureMessage(body.outcome.failure, this.settings.client),
          failureType: failureType(body.outcome.failure),
        };
      if (body.outcome)
        return {
          statusCode: res.statusCode,
          value: decodeAny(firstPayload(body.outcome.success), this.settings.client),
        };
    }
    return { statusCode: 408, message: 'the workflow did not answer the update in time' };
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
    return {
      statusCode: res.statusCode,
      value: decodeAny(firstPayload(body.queryResult), this.settings.client),
    };
  }
}

interface HistoryEvent {
  eventType?: string;
  workflowExecutionCompletedEventAttributes?: { result?: unknown };
  workflowExecutionFailedEventAttributes?: { failure?: Failure };
}

interface Failure {
  message?: string;
  encodedAttributes?: JsonPayload;
  applicationFailureInfo?: { type?: string };
  cause?: Failure;
}

/** The innermost application failure's type (e.g. the flow's `OrderNotReadYet`), if any. */
function failureType(failure: Failure | undefined): string | undefined {
  let type: string | undefined;
  for (let f = failure; f; f = f.cause) type = f.applicationFailureInfo?.type ?? type;
  return type;
}

/** The first payload of a `Payloads` (the HTTP API shows it as a list, or as `{ payloads }`). */
function firstPayload(result: unknown): unknown {
  const r = result as unknown[] | { payloads?: unknown[] } | undefined;
  return Array.isArray(r) ? r[0] : r?.payloads?.[0];
}

/** The innermost message of a failure chain (sealed messages opened with the key when it can). */
function failureMessage(failure: Failure | undefined, key?: ClientCredential): string {
  let message = 'failed';
  for (let f = failure; f; f = f.cause) {
    let text = f.message;
    if (f.encodedAttributes) {
      try {
        text = (decodeValue(f.encodedAttributes, key) as { message?: string } | undefined)?.message ?? text;
      } catch {
        // A message sealed with another key stays as the server shows it ("Encoded failure").
      }
    }
    if (text) message = text;
  }
  return message;
}

/** The HTTP API shows json/plain payloads as their value and others (sealed ones) as payload objects. */
function decodeAny(item: unknown, key?: ClientCredential): unknown {
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
