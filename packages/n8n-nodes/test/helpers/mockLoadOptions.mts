// A mocked ILoadOptionsFunctions for the Marketplace node's editor look-ups (listSearch, loadOptions):
// the node's current parameters as the editor sends them, the credential, and real HTTP to a simulator
// on 127.0.0.1 (the same authenticated helper as mockExecute).
import type { ILoadOptionsFunctions } from 'n8n-workflow';
import { authenticatedHttp, mockNode, type MockOptions, type RecordedRequest } from './mockExecute.mts';

export interface MockLoadOptionsRun {
  fns: ILoadOptionsFunctions;
  requests: RecordedRequest[];
}

export function mockLoadOptions(parameters: Record<string, unknown>, opts: MockOptions): MockLoadOptionsRun {
  const requests: RecordedRequest[] = [];
  const node = { ...mockNode(opts.typeVersion ?? 2), parameters };
  const fns = {
    getNode: () => node,
    getCredentials: async () => ({ environment: 'custom', baseUrl: opts.baseUrl, apiKey: opts.apiKey }),
    // n8n resolves a dotted path into collections (lodash get): `updateFields.department`.
    getCurrentNodeParameter: (name: string) =>
      name
        .split('.')
        .reduce<unknown>(
          (v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined),
          parameters,
        ),
    getCurrentNodeParameters: () => parameters,
    getNodeParameter(name: string, fallback?: unknown) {
      if (name in parameters) return parameters[name];
      if (fallback !== undefined) return fallback;
      throw new Error(`parameter "${name}" is not set`);
    },
    helpers: { httpRequestWithAuthentication: authenticatedHttp(opts, requests) },
  };
  return { fns: fns as unknown as ILoadOptionsFunctions, requests };
}
