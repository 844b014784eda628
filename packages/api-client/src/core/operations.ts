// The operation table: every endpoint of the Selling API with its method, path template, rate group,
// required scopes and idempotency. The client builds requests from it, the simulator registers its
// routes from it and the OpenAPI document is generated from it, so a path is written exactly once.
import type { z } from 'zod/v4';
import * as s from './schemas/index.ts';
import type { Scope } from './schemas/auth.ts';
import type { RateGroup } from './rate-limits.ts';
import { LocalValidationError } from './errors.ts';
import type { RuleViolation } from './rules/violations.ts';
import { PRODUCT_REF_KEYS, PRODUCT_REF_KINDS, refPathSegment, type ProductRefKind } from './product-ref.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  /** `<noun>.<verb>`: the noun names the client resource, simulator handler and n8n resource files. */
  id: string;
  method: HttpMethod;
  /** Path template with `{param}` placeholders; always ends with `/` except `/status`. */
  path: string;
  /** `null` = not metered per seller (token endpoint, status). */
  group: RateGroup | null;
  /** Scopes that are all required. `anyOf` ops accept any one of `scopesAnyOf`. */
  scopes: Scope[];
  scopesAnyOf?: Scope[];
  /** Safe to repeat with the same outcome (GET, PUT/PATCH/DELETE by key, mark-as-sold). */
  idempotent: boolean;
  auth: 'bearer' | 'none';
  body?: z.ZodType;
  query?: z.ZodType;
  response?: z.ZodType;
  /** Only on the staging host (test purchase / like). */
  stagingOnly?: boolean;
  summary: string;
}

/**
 * One operation per kind of product key: `id` + `BySku` / `ByProductId` / `BySlug`, and `path` with
 * `{key}` standing for `by-sku/{sku}`, `by-product-id/{productId}` or `by-slug/{slug}`.
 */
function byKey(
  id: string,
  path: string,
  build: (kind: ProductRefKind) => Omit<Operation, 'id' | 'path'>,
  kinds: readonly ProductRefKind[] = PRODUCT_REF_KINDS,
): Operation[] {
  return kinds.map((kind) => ({
    id: `${id}${PRODUCT_REF_KEYS[kind].suffix}`,
    path: path.replace('{key}', refPathSegment(kind)),
    ...build(kind),
  }));
}

/** A staging-only test action on a listing by SKU or product ID: a POST without body or scope. */
function stagingTestAction(id: string, path: string, summary: string): Operation[] {
  return byKey(
    id,
    path,
    () => ({
      method: 'POST',
      group: 'general',
      scopes: [],
      idempotent: false,
      auth: 'bearer',
      stagingOnly: true,
      summary,
    }),
    ['sku', 'productId'],
  );
}

const w = 'products_write' as const;
const r = 'products_read' as const;

export const OPERATIONS: Operation[] = [
  // products
  {
    id: 'products.create',
    method: 'POST',
    path: '/api/v1/products/',
    group: 'create_update',
    scopes: [w],
    idempotent: false,
    auth: 'bearer',
    body: s.ProductCreateRequest,
    response: s.ProductCreateOrUpdateResponse,
    summary: 'Create a listing',
  },
  {
    id: 'products.list',
    method: 'GET',
    path: '/api/v1/products/',
    group: 'general',
    scopes: [r],
    idempotent: true,
    auth: 'bearer',
    query: s.ProductListQuery,
    response: s.ProductsPage,
    summary: 'List the seller’s products',
  },
  ...byKey('products.get', '/api/v1/products/{key}/', () => ({
    method: 'GET',
    group: 'general',
    scopes: [r],
    idempotent: true,
    auth: 'bearer',
    response: s.Product,
    summary: 'Get one product',
  })),
  ...byKey('products.update', '/api/v1/products/{key}/', (kind) => ({
    method: 'PUT',
    group: 'create_update',
    scopes: [w],
    idempotent: true,
    auth: 'bearer',
    body: s.ProductPutRequest,
    response: s.ProductCreateOrUpdateResponse,
    summary:
      kind === 'sku'
        ? 'Fully update by SKU (creates when the SKU is new)'
        : 'Fully update an existing product',
  })),
  ...byKey('products.patch', '/api/v1/products/{key}/', () => ({
    method: 'PATCH',
    group: 'general',
    scopes: [w],
    idempotent: true,
    auth: 'bearer',
    body: s.PatchProductRequest,
    summary: 'Partially update an on-sale product',
  })),
  ...byKey('products.delete', '/api/v1/products/{key}/', () => ({
    method: 'DELETE',
    group: 'general',
    scopes: [w],
    idempotent: true,
    auth: 'bearer',
    query: s.DeleteProductQuery,
    summary: 'Delete a product (idempotent)',
  })),
  ...byKey('products.markAsSold', '/api/v1/products/{key}/mark-as-sold/', () => ({
    method: 'POST',
    group: 'general',
    scopes: [w],
    idempotent: true,
    auth: 'bearer',
    summary: 'Mark a product sold (a sale made elsewhere)',
  })),
  ...stagingTestAction(
    'products.simulatePurchase',
    '/api/v1/products/{key}/purchase/',
    'Staging only: a test buyer purchases the item',
  ),
  ...stagingTestAction(
    'products.simulateLike',
    '/api/v1/products/{key}/like/',
    'Staging only: a test user likes the item',
  ),
  // offers
  ...byKey('offers.submit', '/api/v1/products/{key}/offer/', () => ({
    method: 'POST',
    group: 'general',
    scopes: ['offers_write'],
    idempotent: false,
    auth: 'bearer',
    body: s.SubmitOfferRequest,
    summary: 'Send a manual offer to an interested buyer',
  })),
  // orders
  {
    id: 'orders.list',
    method: 'GET',
    path: '/api/v1/orders/',
    group: 'general',
    scopes: ['orders_read'],
    idempotent: true,
    auth: 'bearer',
    query: s.OrderListQuery,
    response: s.OrdersPage,
    summary: 'List orders',
  },
  {
    id: 'orders.get',
    method: 'GET',
    path: '/api/v1/orders/{purchase_id}/',
    group: 'general',
    scopes: ['orders_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.Order,
    summary: 'Get one order',
  },
  {
    id: 'orders.markParcelShipped',
    method: 'POST',
    path: '/api/v1/orders/{purchase_id}/parcels/{parcel_id}/mark-as-shipped/',
    group: 'general',
    scopes: ['orders_write'],
    idempotent: true,
    auth: 'bearer',
    body: s.MarkAsShippedRequest,
    summary: 'Mark a parcel shipped with tracking',
  },
  // refunds
  {
    id: 'refunds.create',
    method: 'POST',
    path: '/api/v1/orders/{purchase_id}/refund/',
    group: 'general',
    scopes: ['orders_write'],
    idempotent: false,
    auth: 'bearer',
    body: s.RefundOrderRequest,
    summary: 'Refund an order fully or partly',
  },
  // shop
  {
    id: 'shop.get',
    method: 'GET',
    path: '/api/v1/shop/',
    group: 'general',
    scopes: ['shop_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.SellerDetails,
    summary: 'Seller details',
  },
  {
    id: 'shop.listAddresses',
    method: 'GET',
    path: '/api/v1/shop/seller-addresses/',
    group: 'general',
    scopes: ['shop_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.SellerAddressesPage,
    summary: 'List seller addresses',
  },
  // shipping
  {
    id: 'shipping.listProviders',
    method: 'GET',
    path: '/api/v1/shop/seller-addresses/{address_id}/shipping-providers/',
    group: 'general',
    scopes: ['shop_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.ShippingProviders,
    summary: 'Shipping providers and parcel sizes for an address',
  },
  // insights
  {
    id: 'insights.shop',
    method: 'GET',
    path: '/api/v1/insights/shop/live/',
    group: 'insights',
    scopes: [],
    scopesAnyOf: ['products_read', 'shop_read', 'offers_read', 'orders_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.ShopInsightsResponse,
    summary: 'Live shop insights',
  },
  ...byKey('insights.product', '/api/v1/insights/products/{key}/live/', () => ({
    method: 'GET',
    group: 'insights',
    scopes: [],
    scopesAnyOf: ['products_read', 'offers_read'],
    idempotent: true,
    auth: 'bearer',
    response: s.ProductInsightsResponse,
    summary: 'Live product insights',
  })),
  // pricing
  {
    id: 'pricing.inspiration',
    method: 'POST',
    path: '/api/v1/pricing/inspiration/',
    group: 'general',
    scopes: [],
    idempotent: true,
    auth: 'bearer',
    body: s.PricingInspirationRequest,
    response: s.PricingInspirationResponse,
    summary: 'Price prediction and similar sold items (GB, US)',
  },
  // webhooks (SPEC GAP: shape chosen by us, see schemas/webhooks.ts)
  {
    id: 'webhooks.list',
    method: 'GET',
    path: '/api/v1/webhooks/',
    group: 'general',
    scopes: [],
    idempotent: true,
    auth: 'bearer',
    response: s.WebhookSubscriptionList,
    summary: 'List webhook subscriptions',
  },
  {
    id: 'webhooks.create',
    method: 'POST',
    path: '/api/v1/webhooks/',
    group: 'general',
    scopes: [],
    idempotent: false,
    auth: 'bearer',
    body: s.WebhookSubscriptionRequest,
    response: s.WebhookSubscription,
    summary: 'Subscribe a URL to webhook events',
  },
  {
    id: 'webhooks.delete',
    method: 'DELETE',
    path: '/api/v1/webhooks/{webhook_id}/',
    group: 'general',
    scopes: [],
    idempotent: true,
    auth: 'bearer',
    summary: 'Delete a webhook subscription',
  },
  // auth
  {
    id: 'auth.token',
    method: 'POST',
    path: s.GRANT_ENDPOINT_PATH,
    group: null,
    scopes: [],
    idempotent: false,
    auth: 'none',
    body: s.TokenRequest,
    response: s.OAuthTokenResponse,
    summary: 'OAuth 2.0 token endpoint (code exchange, refresh)',
  },
  {
    id: 'status.get',
    method: 'GET',
    path: '/status',
    group: null,
    scopes: [],
    idempotent: true,
    auth: 'none',
    response: s.StatusResponse,
    summary: 'Availability probe',
  },
];

export const OPERATIONS_BY_ID: ReadonlyMap<string, Operation> = new Map(OPERATIONS.map((op) => [op.id, op]));

export function operation(id: string): Operation {
  const op = OPERATIONS_BY_ID.get(id);
  if (!op) throw new Error(`unknown operation "${id}"`);
  return op;
}

/**
 * A path parameter that would be a URL dot-segment (`.`, `..`, or one written with `%2e`): URL
 * normalisation (WHATWG URL, proxies, servers) would remove it or climb a level, so the request would go
 * to another path than the one meant. No request can address such a value: it is refused (L2).
 */
export const isDotSegment = (value: string): boolean => /^(?:\.|%2e){1,2}$/i.test(value);

/** The rule a dot-segment path parameter breaks, as the validation error names it. */
export const DOT_SEGMENT_RULE = 'not a dot-segment';

export function dotSegmentViolation(name: string, value: string): RuleViolation {
  return {
    field: name,
    rule: DOT_SEGMENT_RULE,
    code: 'validation',
    message: `${name} ${JSON.stringify(value)} would be a URL dot-segment: such a value cannot be sent in a path`,
  };
}

/**
 * Fills `{param}` placeholders, URL-encoding each value; a missing value is a programming error. A
 * dot-segment value throws LocalValidationError (whether the client validates or not): nothing is sent.
 */
export function buildPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === '')
      throw new Error(`path parameter "${name}" is required for ${template}`);
    const text = String(value);
    if (isDotSegment(text)) throw new LocalValidationError([dotSegmentViolation(name, text)]);
    return encodeURIComponent(text);
  });
}
