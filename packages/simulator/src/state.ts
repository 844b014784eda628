// The simulator's whole world, in memory. One `World` per running simulator; tests reset it through
// the admin surface. Records use the wire field names where they are returned as-is.
import type {
  Scope,
  SellerAddress,
  DepopShippingDetails,
  WebhookEventType,
} from '@selling-kit/api-client/core';
import type { Clock } from './platform/clock.ts';

export type ProductState = 'selling' | 'sold' | 'removed' | 'banned';

/** Flags that make a seller fail in the ways the spec lists. Set through the admin surface. */
export interface SellerProfile {
  /** → 422 seller_onboarding_incomplete on writes. */
  onboardingIncomplete: boolean;
  /** false → 422 manual_shipping_not_allowed when a listing uses national_shipping_cost. */
  manualShippingAllowed: boolean;
  /** true → every seller request answers 422 unsupported_country for create/update. */
  unsupportedCountry: boolean;
}

export interface ProductRecord {
  productId: number;
  sellerId: number;
  sku: string | null;
  slug: string;
  state: ProductState;
  /** The state it had when banned or removed (to derive the wire status). */
  previousState?: ProductState;
  /** How a sold product got sold: marked (mark-as-sold, PATCH quantity 0) or purchased (an order). */
  soldVia?: 'marked' | 'purchased';
  /** SPEC GAP (variants): size ids of a multi-size listing created with `variants`; empty otherwise. */
  variantSizeIds?: number[];
  /** The stored write body (wire names), minus the path key. */
  fields: Record<string, unknown>;
  /** Resolved brand (from brand_name) and picture metadata. */
  brand: string;
  pictures: { url: string; width: number; height: number }[];
  quantity: number;
  isBoosted: boolean;
  createdAt: number;
  updatedAt: number;
  /** Simulator clock time before which GET by key answers product_not_found (read-after-create delay). */
  visibleAt: number;
  likes: Set<number>;
  bagCount: number;
}

export interface OfferRecord {
  id: string;
  productId: number;
  recipientId: number;
  value: number;
  currency: string;
  sizeId?: number;
  createdAt: number;
  expiresAt: number;
  state: 'active' | 'cancelled' | 'expired';
}

export interface RefundRecord {
  itemsAmountCents: number;
  shippingAmountCents: number;
  at: number;
  message?: string;
}

export interface OrderRecord {
  purchaseId: string;
  sellerId: number;
  status: 'SHIPPING_PENDING' | 'SHIPPED' | 'REFUNDED' | 'CANCELLED' | 'COMPLETED';
  currency: string;
  /** Line items as on the wire (parcel_id links them to parcels). */
  lineItems: {
    purchase_item_id: number;
    sku: string | null;
    product_id: number;
    slug: string;
    parcel_id: string;
    description: string;
    original_price: string;
    sold_price: string;
    sold_via_offers: boolean;
    image_url: string;
  }[];
  buyerShippingPriceCents: number;
  depopShipping?: DepopShippingDetails;
  parcels: Map<string, { shipped: boolean; trackingNumber?: string; carrier?: string }>;
  refunds: RefundRecord[];
  buyerAddress: Record<string, unknown>;
  createdAt: number;
}

export interface SellerState {
  id: number;
  username: string;
  countryCode: string;
  currency: string;
  profile: SellerProfile;
  addresses: SellerAddress[];
  /** Provider id → parcel sizes available from an address (by address id). */
  shippingProviders: Map<number, string[]>;
  products: Map<number, ProductRecord>;
  /** SKU → product id, including sold and removed products (SKUs are never reusable). */
  skus: Map<string, number>;
  slugs: Map<string, number>;
  offers: OfferRecord[];
  orders: Map<string, OrderRecord>;
  ratingAverage: number;
  ratingCount: number;
}

/** A partner: owns API keys (direct) and OAuth clients (cross-lister); can be access-denied. */
export interface PartnerState {
  id: string;
  accessDenied: boolean;
  /** Per-partner webhook signing secret (`whsec_…`), created with the partner. */
  webhookSecret?: string;
}

export interface ApiKeyRecord {
  key: string;
  partnerId: string;
  sellerId: number;
}

export interface OAuthClientRecord {
  clientId: string;
  clientSecret: string;
  partnerId: string;
  redirectUris: string[];
}

export interface AccessTokenRecord {
  token: string;
  clientId: string;
  sellerId: number;
  scopes: Scope[];
  expiresAt: number;
}

export interface RefreshTokenRecord {
  token: string;
  clientId: string;
  sellerId: number;
  scopes: Scope[];
  /** Rotation: a refresh token works once; the new one keeps the original expiry. */
  used: boolean;
  expiresAt: number;
}

export interface AuthCodeRecord {
  code: string;
  clientId: string;
  sellerId: number;
  scopes: Scope[];
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
  used: boolean;
  /** Tokens issued from this code: revoked if the code is replayed (RFC 6749 §4.1.2). */
  issued?: { accessToken: string; refreshToken: string };
}

export interface WebhookSubscriptionRecord {
  id: string;
  /** Subscriptions belong to a partner and receive events of that partner's sellers. */
  partnerId: string;
  url: string;
  eventTypes: WebhookEventType[];
  createdAt: number;
}

/** Who is calling: resolved from the bearer credential by the gateway. */
export interface Principal {
  kind: 'api_key' | 'oauth';
  partnerId: string;
  sellerId: number;
  /** API keys hold every scope; OAuth tokens the granted ones. */
  scopes: ReadonlySet<Scope>;
  /** OAuth client id for cross-listers (the app-wide budget is counted per client). */
  clientId?: string;
}

export interface World {
  clock: Clock;
  partners: Map<string, PartnerState>;
  sellers: Map<number, SellerState>;
  apiKeys: Map<string, ApiKeyRecord>;
  oauthClients: Map<string, OAuthClientRecord>;
  authCodes: Map<string, AuthCodeRecord>;
  accessTokens: Map<string, AccessTokenRecord>;
  refreshTokens: Map<string, RefreshTokenRecord>;
  webhooks: Map<string, WebhookSubscriptionRecord>;
  /** Deleted subscription id → its partner: a repeated DELETE answers as the first did. */
  deletedWebhooks: Map<string, string>;
  /** Monotonic id sources. */
  ids: { product: number; seller: number; address: number; order: number; lineItem: number };
}
