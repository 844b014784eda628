import type {
  IAuthenticateGeneric,
  ICredentialTestRequest,
  ICredentialType,
  INodeProperties,
} from 'n8n-workflow';
import { BASE_URL_EXPRESSION, environmentProperties } from './environments';
import { secretField } from './secretField';
import { webhookSecretProperty } from './webhookSecret';

/** A shop's API key (direct partners). Tested against the seller details endpoint. */
export class MarketplaceApi implements ICredentialType {
  name = 'marketplaceApi';

  displayName = 'Marketplace API';

  icon = 'file:../nodes/Marketplace/marketplace.svg' as const;

  documentationUrl = 'https://partnerapi.depop.com/api-docs/concepts/authentication/';

  properties: INodeProperties[] = [
    ...environmentProperties,
    secretField({
      displayName: 'API Key',
      name: 'apiKey',
      required: true,
      placeholder: 'pak_…',
      description:
        "The shop's API key (pak_…), sent as a bearer token. The API is private: the marketplace issues keys to partners on request (contact its partner team), one per shop and long-lived; staging needs its own Testing key. The local simulator's demo shop takes pak_demo_selling_kit.",
    }),
    webhookSecretProperty,
  ];

  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
  };

  test: ICredentialTestRequest = {
    request: { baseURL: BASE_URL_EXPRESSION, url: '/api/v1/shop/', method: 'GET' },
  };
}
