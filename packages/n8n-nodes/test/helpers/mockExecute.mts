// A mocked IExecuteFunctions for the Marketplace node: parameters per item, the node's credential, and
// `helpers.httpRequestWithAuthentication` doing real HTTP to a simulator on 127.0.0.1 with the
// credential's bearer key (what n8n's generic authenticate does), answering in n8n's full-response shape.
// Parameters are given per item as n8n holds them: a resource locator is `{ __rl: true, mode, value }`.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

export interface MockOptions {
  baseUrl: string;
  apiKey: string;
  continueOnFail?: boolean;
  /** Rewrites an answer before the node sees it (e.g. to inject a 429). */
  intercept?: (
    call: number,
    url: string,
  ) => { statusCode: number; headers: Record<string, string>; body: string } | undefined;
  /** The node's version (default 1, what the first tests were written for). */
  typeVersion?: number;
}

export type RecordedRequest = {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The JSON body sent, when there was one. */
  body?: string;
};

export interface MockRun {
  fns: IExecuteFunctions;
  requests: RecordedRequest[];
}

/**
 * n8n's `httpRequestWithAuthentication` for the API-key credential, over real HTTP: records the request
 * (without the key) and answers in the full-response shape, unless `intercept` answers instead.
 */
export function authenticatedHttp(opts: MockOptions, requests: RecordedRequest[]) {
  return async function httpRequestWithAuthentication(
    this: unknown,
    credentialType: string,
    req: { method: string; url: string; headers?: Record<string, string>; body?: string },
  ) {
    if (credentialType !== 'marketplaceApi') throw new Error(`unexpected credential ${credentialType}`);
    const headers = { ...req.headers, authorization: `Bearer ${opts.apiKey}` };
    requests.push({ method: req.method, url: req.url, headers: req.headers ?? {}, body: req.body });
    const injected = opts.intercept?.(requests.length, req.url);
    if (injected) return injected;
    const res = await fetch(req.url, { method: req.method, headers, body: req.body });
    return { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  };
}

/** The node as n8n hands it to the code (its version decides which parameters it reads). */
export const mockNode = (typeVersion = 1) => ({
  id: 'node-1',
  name: 'Marketplace',
  type: '@selling-kit/n8n-nodes-marketplace.marketplace',
  typeVersion,
  position: [0, 0] as [number, number],
  parameters: {},
});

type Params = Record<string, unknown>;

export function mockExecute(items: Params[], opts: MockOptions): MockRun {
  const requests: MockRun['requests'] = [];
  const input: INodeExecutionData[] = items.map(() => ({ json: {} }));
  const node = mockNode(opts.typeVersion);
  const fns = {
    getInputData: () => input,
    getNode: () => node,
    continueOnFail: () => opts.continueOnFail ?? false,
    getCredentials: async () => ({ environment: 'custom', baseUrl: opts.baseUrl, apiKey: opts.apiKey }),
    getNodeParameter(name: string, i: number, fallback?: unknown) {
      const params = items[i] ?? {};
      if (name in params) return params[name];
      if (fallback !== undefined) return fallback;
      throw new Error(`parameter "${name}" is not set for item ${i}`);
    },
    helpers: { httpRequestWithAuthentication: authenticatedHttp(opts, requests) },
  };
  return { fns: fns as unknown as IExecuteFunctions, requests };
}

export const jsonOf = (out: INodeExecutionData[][]) => out[0]!.map((i) => i.json as IDataObject);
