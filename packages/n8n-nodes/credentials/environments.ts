// Base-URL presets shared by the credentials: the service's production and staging hosts from its
// public reference, and the local simulator (its address editable: another port, another host). The
// picker shows each preset's URL, so a user sees where requests go before saving.
import type { INodeProperties } from 'n8n-workflow';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL, checkBaseUrl } from '@selling-kit/api-client/core';

export const BASE_URLS = {
  simulator: 'http://127.0.0.1:4010',
  staging: STAGING_BASE_URL,
  production: PRODUCTION_BASE_URL,
} as const;

/** Environments whose base URL is the `baseUrl` field (prefilled with the simulator's address). */
export const EDITABLE_ENVIRONMENTS = ['simulator', 'custom'] as const;

export const environmentProperties: INodeProperties[] = [
  {
    displayName: 'Environment',
    name: 'environment',
    type: 'options',
    options: [
      {
        name: `Production (${BASE_URLS.production})`,
        value: 'production',
        description: 'The live marketplace: real listings, real buyers',
      },
      {
        name: `Staging (${BASE_URLS.staging})`,
        value: 'staging',
        description: 'The test environment; it takes the separate Testing key the marketplace issues',
      },
      {
        name: `Local Simulator (${BASE_URLS.simulator}, editable)`,
        value: 'simulator',
        description: "selling-kit's simulator (`selling-kit dev` starts it); change its address below",
      },
      {
        name: 'Custom URL',
        value: 'custom',
        description: 'Any other host serving the Selling API, entered below',
      },
    ],
    default: 'production',
  },
  {
    displayName: 'Base URL',
    name: 'baseUrl',
    type: 'string',
    default: BASE_URLS.simulator,
    placeholder: BASE_URLS.simulator,
    description: `Where the Selling API (or a simulator) answers: https://, or http:// to this machine (127.0.0.1, localhost) only. The simulator listens on ${BASE_URLS.simulator} unless started on another port.`,
    displayOptions: { show: { environment: [...EDITABLE_ENVIRONMENTS] } },
  },
];

/**
 * The base URL requests go to, from a credential's `environment` and `baseUrl` (trailing slashes
 * dropped): the preset's URL, or `baseUrl` for the simulator (its default address when left empty)
 * and for a custom URL. The expressions below say the same for n8n's credential test and OAuth URLs.
 */
export function resolveBaseUrl(credentials: { environment?: unknown; baseUrl?: unknown }): string {
  const environment = String(credentials.environment ?? 'production');
  const typed = String(credentials.baseUrl ?? '').trim();
  // An edited address: https:, or http: to a loopback host only (the client's one rule, base-url.ts).
  if (environment === 'custom') return checkBaseUrl(typed).replace(/\/+$/, '');
  if (environment === 'simulator') return checkBaseUrl(typed || BASE_URLS.simulator).replace(/\/+$/, '');
  return BASE_URLS[environment as keyof typeof BASE_URLS] ?? BASE_URLS.production;
}

/** `resolveBaseUrl` as an n8n expression over `holder` (`$credentials`, or `$self` in a credential). */
export const baseUrlExpression = (holder: '$credentials' | '$self') =>
  `${holder}.environment === "custom" ? String(${holder}.baseUrl || "").trim().replace(/\\/+$/, "") : ${holder}.environment === "simulator" ? (String(${holder}.baseUrl || "").trim() || "${BASE_URLS.simulator}").replace(/\\/+$/, "") : ({ production: "${BASE_URLS.production}", staging: "${BASE_URLS.staging}" })[${holder}.environment]`;

/** The base URL an expression in a credential resolves to, from `environment` and `baseUrl`. */
export const BASE_URL_EXPRESSION = `={{${baseUrlExpression('$credentials')}}}`;
