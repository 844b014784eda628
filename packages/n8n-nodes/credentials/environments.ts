// Base-URL presets shared by the credentials: the local simulator, and the service's staging and
// production hosts from its public reference.
import type { INodeProperties } from 'n8n-workflow';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL } from '@selling-kit/api-client/core';

export const BASE_URLS = {
  simulator: 'http://127.0.0.1:4010',
  staging: STAGING_BASE_URL,
  production: PRODUCTION_BASE_URL,
} as const;

export const environmentProperties: INodeProperties[] = [
  {
    displayName: 'Environment',
    name: 'environment',
    type: 'options',
    options: [
      { name: 'Production', value: 'production' },
      { name: 'Staging', value: 'staging' },
      { name: 'Local Simulator', value: 'simulator' },
      { name: 'Custom URL', value: 'custom' },
    ],
    default: 'production',
  },
  {
    displayName: 'Base URL',
    name: 'baseUrl',
    type: 'string',
    default: 'http://127.0.0.1:4010',
    placeholder: 'http://127.0.0.1:4010',
    description: 'Where the Selling API (or a simulator) answers',
    displayOptions: { show: { environment: ['custom'] } },
  },
];

/** The base URL an expression in a credential resolves to, from `environment` and `baseUrl`. */
export const BASE_URL_EXPRESSION = `={{$credentials.environment === "custom" ? $credentials.baseUrl.replace(/\\/+$/, "") : ({ production: "${BASE_URLS.production}", staging: "${BASE_URLS.staging}", simulator: "${BASE_URLS.simulator}" })[$credentials.environment]}}`;
