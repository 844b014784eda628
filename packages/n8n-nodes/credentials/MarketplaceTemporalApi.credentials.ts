import type {
  IAuthenticateGeneric,
  ICredentialTestRequest,
  ICredentialType,
  INodeProperties,
} from 'n8n-workflow';

/**
 * Where selling-kit's bulk jobs run: a Temporal server's HTTP API, the namespace and task queue of the
 * selling-kit worker, and the payload codec key the worker uses (so job inputs are sealed in history).
 */
export class MarketplaceTemporalApi implements ICredentialType {
  name = 'marketplaceTemporalApi';

  displayName = 'Marketplace Bulk Jobs (Temporal) API';

  icon = 'file:../nodes/Marketplace/marketplace.svg' as const;

  documentationUrl = 'https://docs.temporal.io/references/http-api';

  properties: INodeProperties[] = [
    {
      displayName: 'HTTP API URL',
      name: 'url',
      type: 'string',
      default: 'http://127.0.0.1:7243',
      description: "The Temporal frontend's HTTP API (the dev server's --http-port)",
    },
    { displayName: 'Namespace', name: 'namespace', type: 'string', default: 'default' },
    { displayName: 'Task Queue', name: 'taskQueue', type: 'string', default: 'selling-kit' },
    {
      displayName: 'Codec Key',
      name: 'codecKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description:
        "The worker's SELLING_KIT_CODEC_KEY (base64 of 32 bytes); empty when the worker does not encrypt",
    },
    {
      displayName: 'Report Directory',
      name: 'reportDir',
      type: 'string',
      default: '/var/lib/selling-kit/reports',
      description: 'Where the worker writes per-item reports (a path on the worker)',
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description: 'Temporal Cloud API key, if the server needs one',
    },
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: { Authorization: '={{$credentials.apiKey ? "Bearer " + $credentials.apiKey : ""}}' },
    },
  };

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.url}}',
      url: '=/api/v1/namespaces/{{$credentials.namespace}}',
      method: 'GET',
    },
  };
}
