// Product (listing) wire objects: the read model, the write bodies and the list query.
import { z } from 'zod/v4';
import {
  Address,
  Age,
  Colour,
  Condition,
  CurrencyCode,
  Department,
  IsoDateTime,
  Money,
  pageOf,
  Source,
  Style,
} from './common.ts';
import { DepopShippingDetails } from './shipping.ts';

export const SKU_MAX_LENGTH = 50;
export const MAX_PICTURES = 8;
export const MAX_HASHTAGS = 5;
export const DESCRIPTION_MAX_LENGTH = 1000;
export const PRODUCTS_PAGE_MAX = 100;

export const Sku = z.string().min(1).max(SKU_MAX_LENGTH);
export const ProductId = z.number().int().positive();
export const Slug = z.string().min(1);

export const ProductStatus = z.enum([
  'STATUS_ONSALE',
  'STATUS_PURCHASED',
  'STATUS_MARKED_AS_SOLD',
  'STATUS_DELETED',
  'STATUS_DELETED_ONSALE',
  'STATUS_DELETED_PURCHASED',
  'STATUS_DELETED_MARKED_AS_SOLD',
  'STATUS_PRODUCT_BANNED_ONSALE',
  'STATUS_USER_BANNED_ONSALE',
  'STATUS_PRODUCT_BANNED_PURCHASED',
  'STATUS_USER_BANNED_PURCHASED',
]);
export type ProductStatus = z.infer<typeof ProductStatus>;

export const Picture = z.looseObject({ url: z.string(), height: z.number(), width: z.number() });
export const PublicPicture = z.looseObject({ url: z.url() });

/** Fields common to POST create and PUT full update. */
const productWriteFields = {
  address: Address,
  description: z.string().min(1).max(DESCRIPTION_MAX_LENGTH),
  price_currency: CurrencyCode,
  price_amount: Money,
  discount_price: Money.optional(),
  auto_send_offer_price: Money.optional(),
  auto_negotiate_offer_price: Money.optional(),
  national_shipping_cost: Money.optional(),
  international_shipping_cost: Money.optional(),
  depop_shipping: DepopShippingDetails.optional(),
  quantity: z.number().int(),
  pictures: z.array(PublicPicture).min(1).max(MAX_PICTURES),
  department: z.string(),
  product_type: z.string().min(1),
  size_set_id: z.number().int().optional(),
  size_id: z.number().int().optional(),
  condition: Condition,
  colour: z.array(Colour).max(2).optional(),
  style: z.array(Style).max(3).optional(),
  age: z.array(Age).max(1).optional(),
  source: z.array(Source).max(2).optional(),
  brand_name: z.string().min(1),
  is_boosted: z.boolean().optional(),
};

/** POST /api/v1/products/ — `sku` optional, `attributes` optional. */
export const ProductCreateRequest = z.looseObject({
  ...productWriteFields,
  sku: Sku.optional(),
  attributes: z.record(z.string(), z.array(z.string())).optional(),
});
export type ProductCreateRequest = z.infer<typeof ProductCreateRequest>;

/** PUT by-sku (upsert) / by-product-id / by-slug (update only) — `attributes` required (`{}` if none). */
export const ProductPutRequest = z.looseObject({
  ...productWriteFields,
  attributes: z.record(z.string(), z.array(z.string())),
});
export type ProductPutRequest = z.infer<typeof ProductPutRequest>;

/** PATCH — every field optional; the product must be on sale. `quantity: 0` sells out (spec). */
export const PatchProductRequest = z.looseObject({
  price_amount: Money.optional(),
  discount_price: Money.optional(),
  auto_send_offer_price: Money.optional(),
  auto_negotiate_offer_price: Money.optional(),
  quantity: z.number().int().optional(),
  is_boosted: z.boolean().optional(),
});
export type PatchProductRequest = z.infer<typeof PatchProductRequest>;

export const ProductCreateOrUpdateResponse = z.looseObject({
  product_id: z.number(),
  slug: z.string(),
  sku: z.string().nullable().optional(),
});
export type ProductCreateOrUpdateResponse = z.infer<typeof ProductCreateOrUpdateResponse>;

/** The read model (GET by key and list items). Lenient: unknown fields are kept. */
export const Product = z.looseObject({
  sku: z.string().nullable().optional(),
  product_id: z.number(),
  slug: z.string(),
  status: z.string(),
  address: Address,
  description: z.string(),
  price_currency: z.string(),
  price_amount: z.string(),
  current_price: z.string().optional(),
  discount_price: z.string().optional(),
  auto_send_offer_price: z.string().optional(),
  auto_negotiate_offer_price: z.string().optional(),
  national_shipping_cost: z.string().optional(),
  international_shipping_cost: z.string().optional(),
  depop_shipping: DepopShippingDetails.optional(),
  quantity: z.number(),
  pictures: z.array(Picture),
  department: z.string(),
  product_type: z.string(),
  size_set_id: z.number().optional(),
  size_id: z.number().optional(),
  condition: z.string().optional(),
  colour: z.array(z.string()),
  style: z.array(z.string()),
  age: z.array(z.string()),
  source: z.array(z.string()),
  brand: z.string(),
  attributes: z.record(z.string(), z.array(z.string())),
  is_boosted: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Product = z.infer<typeof Product>;
export const ProductsPage = pageOf(Product);

export const ProductSortBy = z.enum(['id_desc', 'id_asc', 'created_date_desc']);
export type ProductSortBy = z.infer<typeof ProductSortBy>;
export const ProductStateFilter = z.enum(['selling', 'sold', 'all']);
export type ProductStateFilter = z.infer<typeof ProductStateFilter>;

export const ProductListQuery = z.object({
  limit: z.number().int().min(1).max(PRODUCTS_PAGE_MAX).optional(),
  cursor: z.string().optional(),
  sort_by: ProductSortBy.optional(),
  state: ProductStateFilter.optional(),
  from_created_date: IsoDateTime.optional(),
  to_created_date: IsoDateTime.optional(),
});
export type ProductListQuery = z.infer<typeof ProductListQuery>;

export const DeleteProductQuery = z.object({ fail_if_active_offers: z.boolean().optional() });
export type DeleteProductQuery = z.infer<typeof DeleteProductQuery>;

/** Department values the write endpoints accept (others → invalid_department). */
export const DEPARTMENTS = Department.options;
