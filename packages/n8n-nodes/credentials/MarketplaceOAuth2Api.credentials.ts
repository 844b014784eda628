import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { SCOPES } from '@selling-kit/api-client/core';
import { BASE_URLS, environmentProperties } from './environments';

/** Every scope of the Selling API, from the client core. */
const ALL_SCOPES = SCOPES.join(' ');

const pick = (production: string, staging: string, simulator: string) =>
  `={{$self.environment === "custom" ? $self.baseUrl.replace(/\\/+$/, "") + "${simulator.replace(BASE_URLS.simulator, '')}" : ({ production: "${production}", staging: "${staging}", simulator: "${simulator}" })[$self.environment]}}`;

/**
 * A seller connected to a cross-lister app: authorization code with PKCE, refreshed by n8n (refresh
 * tokens rotate; n8n stores the new one). The consent page is the marketplace's website; the simulator
 * has its own at /oauth/authorize.
 */
export class MarketplaceOAuth2Api implements ICredentialType {
  name = 'marketplaceOAuth2Api';

  extends = ['oAuth2Api'];

  displayName = 'Marketplace OAuth2 API';

  icon = 'file:../nodes/Marketplace/marketplace.svg' as const;

  documentationUrl = 'https://partnerapi.depop.com/api-docs/getting-started/your-first-oauth-connection/';

  properties: INodeProperties[] = [
    ...environmentProperties,
    { displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'pkce' },
    {
      displayName: 'Authorization URL',
      name: 'authUrl',
      type: 'hidden',
      default: pick(
        'https://www.depop.com/settings/oauth/apps/',
        'https://www.depop.com/settings/oauth/apps/',
        `${BASE_URLS.simulator}/oauth/authorize`,
      ),
    },
    {
      displayName: 'Access Token URL',
      name: 'accessTokenUrl',
      type: 'hidden',
      default: pick(
        `${BASE_URLS.production}/api/v1/oauth2/access-token/`,
        `${BASE_URLS.staging}/api/v1/oauth2/access-token/`,
        `${BASE_URLS.simulator}/api/v1/oauth2/access-token/`,
      ),
    },
    { displayName: 'Scope', name: 'scope', type: 'hidden', default: ALL_SCOPES },
    { displayName: 'Auth URI Query Parameters', name: 'authQueryParameters', type: 'hidden', default: '' },
    { displayName: 'Authentication', name: 'authentication', type: 'hidden', default: 'body' },
  ];
}
