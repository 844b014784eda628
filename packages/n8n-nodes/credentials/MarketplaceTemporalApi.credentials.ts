import type {
  ICredentialDataDecryptedObject,
  ICredentialTestRequest,
  ICredentialType,
  IHttpRequestOptions,
  INodeProperties,
} from 'n8n-workflow';
import { TLS_FIELDS, tlsAgentOptions } from '../nodes/MarketplaceBulkJob/transport/tls';
import { DEFAULT_TASK_QUEUE } from '@selling-kit/temporal-workflows/contract';
import { secretField } from './secretField';

/**
 * Where selling-kit's bulk jobs run: a Temporal server's HTTP API, the namespace and task queue of the
 * selling-kit worker, and a client key issued for this n8n (so job inputs are sealed in history and the
 * worker knows which shops they may name). The worker's own codec key is never given to n8n: a
 * credential saved with the old Codec Key field is refused with a message naming `selling-kit keys issue`.
 * Temporal Cloud: the namespace's HTTPS endpoint and an API key. A self-hosted server with TLS: its CA;
 * with mTLS (`requireClientAuth`) also a client certificate and key — the frontend's HTTP port speaks
 * the same TLS as its gRPC port.
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
    { displayName: 'Task Queue', name: 'taskQueue', type: 'string', default: DEFAULT_TASK_QUEUE },
    secretField({
      displayName: 'Client Key',
      name: 'clientKey',
      description:
        'The line `selling-kit keys issue --id <name> --shops <shop,…>` prints (skc1.…): it seals job inputs and signs them, and the worker runs jobs only for the shops it names. Empty when the worker does not encrypt.',
    }),
    {
      displayName: 'Report Directory',
      name: 'reportDir',
      type: 'string',
      default: '/var/lib/selling-kit/reports',
      description:
        'No longer used: the worker keeps reports in its job store, and the node reads them through Temporal (Get Report). Kept so credentials saved with it still load.',
    },
    secretField({
      displayName: 'API Key',
      name: 'apiKey',
      description: 'Temporal Cloud API key, if the server needs one',
    }),
    secretField({
      displayName: TLS_FIELDS.caCertificate,
      name: 'caCertificate',
      description:
        "PEM of the CA that signed the server's certificate (a private CA); empty: the system's CAs. Needs an https:// URL.",
    }),
    secretField({
      displayName: TLS_FIELDS.clientCertificate,
      name: 'clientCertificate',
      description: 'PEM client certificate for mTLS, when the server requires one (with its private key)',
    }),
    secretField({
      displayName: TLS_FIELDS.clientPrivateKey,
      name: 'clientPrivateKey',
      description: 'PEM private key of the client certificate (unencrypted)',
    }),
  ];

  /**
   * Every request (the node's and the credential test's): the API key as a bearer token, and the TLS
   * files as the HTTPS agent's options. A function, since n8n's generic form sets headers, query and
   * body only.
   */
  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    requestOptions: IHttpRequestOptions,
  ): Promise<IHttpRequestOptions> {
    const apiKey = String(credentials.apiKey ?? '');
    const tls = tlsAgentOptions(credentials);
    return {
      ...requestOptions,
      ...(apiKey ? { headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` } } : {}),
      ...(tls ? { agentOptions: { ...requestOptions.agentOptions, ...tls } } : {}),
    };
  }

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.url}}',
      url: '=/api/v1/namespaces/{{$credentials.namespace}}',
      method: 'GET',
    },
  };
}
