import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { SCOPES } from '@selling-kit/api-client/core';
import { BASE_URLS, EDITABLE_ENVIRONMENTS, baseUrlExpression, environmentProperties } from './environments';
import { webhookSecretProperty } from './webhookSecret';

/** The simulator's demo shop (`selling-kit dev`), whose username its consent page approves by default. */
const SIMULATOR_DEMO_SHOP = 'demo-shop';

/**
 * The simulator's consent page approves at once for the shop named by `login_hint` (it has no login
 * form); other environments get no extra parameter.
 */
const LOGIN_HINT = `={{["simulator", "custom"].includes($self.environment) && String($self.simulatorLogin || "").trim() ? "login_hint=" + encodeURIComponent(String($self.simulatorLogin).trim()) : ""}}`;

/** Every scope of the Selling API, from the client core. */
const ALL_SCOPES = SCOPES.join(' ');

/**
 * A URL per environment: the given ones for production and staging, and the simulator's or custom
 * base URL (as typed in the credential) followed by the simulator's path for the other two.
 */
const pick = (production: string, staging: string, simulator: string) =>
  `={{["simulator", "custom"].includes($self.environment) ? (${baseUrlExpression('$self')}) + "${simulator.replace(BASE_URLS.simulator, '')}" : ({ production: "${production}", staging: "${staging}" })[$self.environment]}}`;

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
    {
      displayName: 'Simulator Shop (Username)',
      name: 'simulatorLogin',
      type: 'string',
      default: SIMULATOR_DEMO_SHOP,
      placeholder: SIMULATOR_DEMO_SHOP,
      description: `The shop the simulator's consent page approves for (it has no login: this username goes as login_hint). The demo shop is ${SIMULATOR_DEMO_SHOP}. On the marketplace the seller logs in on its consent page instead.`,
      displayOptions: { show: { environment: [...EDITABLE_ENVIRONMENTS] } },
    },
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
    {
      displayName: 'Auth URI Query Parameters',
      name: 'authQueryParameters',
      type: 'hidden',
      default: LOGIN_HINT,
    },
    { displayName: 'Authentication', name: 'authentication', type: 'hidden', default: 'body' },
    webhookSecretProperty,
  ];
}
