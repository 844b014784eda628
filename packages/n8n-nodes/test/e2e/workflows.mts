// Workflows the end-to-end tests import into n8n (public API shape: name, nodes, connections, settings).
import { randomUUID } from 'node:crypto';
import { PACKAGE_NAME } from './harness.mts';

export const TRIGGER_TYPE = `${PACKAGE_NAME}.marketplaceTrigger`;
export const ACTION_TYPE = `${PACKAGE_NAME}.marketplace`;
export const BULK_TYPE = `${PACKAGE_NAME}.marketplaceBulkJob`;

type Credentials = Record<string, { id: string; name: string }>;

export interface NodeSpec {
  name: string;
  type: string;
  parameters: Record<string, unknown>;
  credentials?: Credentials;
  typeVersion?: number;
  webhookId?: string;
  /** Error handling of the node: 'continueRegularOutput' is the editor's "On Error: Continue". */
  onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
}

const settings = {
  executionOrder: 'v1',
  saveDataSuccessExecution: 'all',
  saveDataErrorExecution: 'all',
  saveManualExecutions: true,
};

/** A linear workflow: each node feeds the next. */
export function chain(name: string, specs: NodeSpec[]): Record<string, unknown> {
  const nodes = specs.map((s, i) => ({
    id: randomUUID(),
    name: s.name,
    type: s.type,
    typeVersion: s.typeVersion ?? 1,
    position: [i * 240, 0],
    parameters: s.parameters,
    ...(s.credentials ? { credentials: s.credentials } : {}),
    ...(s.webhookId ? { webhookId: s.webhookId } : {}),
    ...(s.onError ? { onError: s.onError } : {}),
  }));
  const connections: Record<string, unknown> = {};
  specs.slice(1).forEach((next, i) => {
    connections[specs[i]!.name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
  });
  return { name, nodes, connections, settings };
}

/** n8n's Webhook node answering with the last node's items: how a published workflow is run over HTTP. */
export function webhookStart(path: string): NodeSpec {
  return {
    name: 'Start',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2,
    webhookId: randomUUID(),
    parameters: {
      httpMethod: 'POST',
      path,
      responseMode: 'lastNode',
      responseData: 'allEntries',
      options: {},
    },
  };
}

/**
 * How the e2e tests drive the Marketplace action node (nodes/Marketplace/, the other half of the
 * issue): only this block knows its parameter and credential names.
 */
const product = (operation: string, extra: Record<string, unknown>): Record<string, unknown> => ({
  authentication: 'apiKey',
  resource: 'products',
  operation,
  ...extra,
});

export const ACTION = {
  credentialType: 'marketplaceApi',
  credentialData: (baseUrl: string, apiKey: string): Record<string, unknown> => ({
    environment: 'custom',
    baseUrl,
    apiKey,
  }),
  createProduct: (sku: string, listing: Listing): Record<string, unknown> =>
    product('create', {
      newSku: sku,
      description: listing.description,
      priceAmount: listing.price,
      priceCurrency: listing.currency,
      quantity: 1,
      pictureUrls: listing.pictureUrls.join(','),
      department: listing.department,
      productType: listing.productType,
      condition: listing.condition,
      brandName: listing.brand,
      countryCode: listing.countryCode,
      nationalShippingCost: listing.nationalShippingCost,
      additionalFields: '{}',
    }),
  getProduct: (sku: string): Record<string, unknown> => product('get', { productKey: 'sku', sku }),
  patchProduct: (sku: string, priceAmount: string): Record<string, unknown> =>
    product('patch', {
      productKey: 'sku',
      sku,
      updateFields: { price_amount: priceAmount },
      additionalFields: '{}',
    }),
  markSold: (sku: string): Record<string, unknown> => product('markSold', { productKey: 'sku', sku }),
};

export interface Listing {
  description: string;
  price: string;
  currency: string;
  pictureUrls: string[];
  department: string;
  productType: string;
  condition: string;
  brand: string;
  countryCode: string;
  nationalShippingCost: string;
}
