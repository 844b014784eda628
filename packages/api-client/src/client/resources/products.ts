// client.products: /api/v1/products/… — create, list, and get / update (PUT) / patch / delete /
// mark-as-sold by SKU, product ID or slug; boost, restock and sell-out as PATCHes; staging test
// purchase and like.
import {
  BadRequestError,
  ConflictError,
  ProductNotFoundError,
  ValidationError,
  SellingApiError,
} from '../../core/errors.ts';
import { operation } from '../../core/operations.ts';
import { violation } from '../../core/rules/violations.ts';
import type { ValidationContext } from '../../core/validate.ts';
import type {
  PatchProductRequest,
  Product,
  ProductCreateOrUpdateResponse,
  ProductCreateRequest,
  ProductListQuery,
  ProductPutRequest,
} from '../../core/schemas/products.ts';
import type { ClientContext } from '../client.ts';
import type { PageIterator } from '../pagination.ts';
import { refCall, type ProductRef } from '../product-ref.ts';
import type { RequestOptions, VerifyContext, VerifyOutcome } from '../requester.ts';
import { Resource } from './resource.ts';

export type { ProductRef };

export interface ProductListParams extends Omit<
  ProductListQuery,
  'cursor' | 'from_created_date' | 'to_created_date'
> {
  from_created_date?: string | Date;
  to_created_date?: string | Date;
}

export interface PatchOptions extends RequestOptions {
  /** The product's current prices, for the local price rules. */
  current?: ValidationContext['current'];
}

/**
 * The one PATCH of a product, for client.products and for client.offers (automatic offers and the
 * discount are product fields): `options.current`, the product's prices, lets the local rules check a
 * new discount or auto-offer price against the price.
 */
export async function patchProduct(
  ctx: ClientContext,
  ref: ProductRef,
  /** A PatchProductRequest's fields (the requester checks the body against the operation's schema). */
  body: object,
  options?: PatchOptions,
): Promise<void> {
  const { current, ...rest } = options ?? {};
  await ctx.requester.call({
    ...refCall(ctx, 'products.patch', ref),
    body,
    options: rest,
    context: current ? { current } : undefined,
  });
}

export interface CreateOptions extends RequestOptions {
  /**
   * false: an unknown outcome (504, timeout, reset) is not verified here but thrown as
   * OutcomeUnknownError — for callers that verify creates themselves (a bulk job's workflow).
   */
  verify?: boolean;
}

const iso = (d: string | Date | undefined) => (d instanceof Date ? d.toISOString() : d);

export class ProductsResource extends Resource {
  /**
   * POST /api/v1/products/. Not idempotent: after a 504 or a timeout, a body with a `sku` is verified
   * by GET by SKU (re-checked across the read-after-create delay) and re-created only when the listing
   * is confirmed absent; without a `sku` (or with `verify: false`) it throws OutcomeUnknownError.
   */
  async create(body: ProductCreateRequest, options?: CreateOptions): Promise<ProductCreateOrUpdateResponse> {
    const sku = body.sku;
    let verifiedAbsent = false;
    const verify =
      sku && options?.verify !== false
        ? async (v: VerifyContext): Promise<VerifyOutcome<ProductCreateOrUpdateResponse>> => {
            const outcome = await this.findBySku(sku, v, options);
            if (!outcome.found) verifiedAbsent = true;
            return outcome;
          }
        : undefined;
    try {
      const created = await this.ctx.requester.call<ProductCreateOrUpdateResponse>({
        op: operation('products.create'),
        body,
        options,
        verify,
      });
      this.ctx.recent.add(created, this.ctx.now());
      return created;
    } catch (error) {
      // A re-create after a confirmed absence that now reports the SKU as taken: the first create had
      // landed after all (past the read-after-create window). Return the listing instead of failing.
      if (
        sku &&
        verifiedAbsent &&
        (error instanceof ValidationError ||
          error instanceof BadRequestError ||
          error instanceof ConflictError)
      ) {
        const again = await this.findBySku(
          sku,
          { sleep: this.ctx.sleep, signal: options?.signal },
          options,
          [0],
        );
        if (again.found) return again.value;
      }
      throw error;
    }
  }

  /** GET by SKU a few times; found → the listing's keys, absent only when every check says so. */
  private async findBySku(
    sku: string,
    v: Pick<VerifyContext, 'sleep' | 'signal'>,
    options: RequestOptions | undefined,
    delays = this.ctx.verifyDelaysMs,
  ): Promise<VerifyOutcome<ProductCreateOrUpdateResponse>> {
    let checks = 0;
    for (const delay of delays) {
      if (delay > 0) await v.sleep(delay, v.signal);
      checks++;
      try {
        const p = await this.getBySku(sku, { signal: v.signal, timeoutMs: options?.timeoutMs });
        return { found: true, checks, value: { product_id: p.product_id, slug: p.slug, sku: p.sku ?? sku } };
      } catch (error) {
        if (error instanceof ProductNotFoundError) continue;
        throw error instanceof SellingApiError
          ? error
          : new SellingApiError({ code: 'verify_failed', message: String(error) });
      }
    }
    return { found: false, checks };
  }

  /**
   * GET /api/v1/products/ — iterate items with `for await`, or pages with `.pages()`.
   * `limit` (page size) is at most 100.
   */
  list(params: ProductListParams = {}, options?: RequestOptions): PageIterator<Product> {
    const op = operation('products.list');
    const query = {
      ...params,
      from_created_date: iso(params.from_created_date),
      to_created_date: iso(params.to_created_date),
    };
    return this.checkedPages<Product>(op, query, options, (p) => p.product_id);
  }

  get(ref: ProductRef, options?: RequestOptions): Promise<Product> {
    return this.ctx.requester.call<Product>({ ...refCall(this.ctx, 'products.get', ref), options });
  }
  getBySku(sku: string, options?: RequestOptions): Promise<Product> {
    return this.get({ sku }, options);
  }
  getByProductId(productId: number, options?: RequestOptions): Promise<Product> {
    return this.get({ productId }, options);
  }
  getBySlug(slug: string, options?: RequestOptions): Promise<Product> {
    return this.get({ slug }, options);
  }

  /** PUT: full update (by SKU it is an upsert: the SKU is created when new). Idempotent. */
  async update(
    ref: ProductRef,
    body: ProductPutRequest,
    options?: RequestOptions,
  ): Promise<ProductCreateOrUpdateResponse> {
    const res = await this.ctx.requester.call<ProductCreateOrUpdateResponse>({
      ...refCall(this.ctx, 'products.update', ref),
      body,
      options,
    });
    if ('sku' in ref) this.ctx.recent.add(res, this.ctx.now());
    return res;
  }
  updateBySku(sku: string, body: ProductPutRequest, options?: RequestOptions) {
    return this.update({ sku }, body, options);
  }
  /** Same as updateBySku: PUT by SKU creates the listing when the SKU is new. */
  upsertBySku(sku: string, body: ProductPutRequest, options?: RequestOptions) {
    return this.update({ sku }, body, options);
  }
  updateByProductId(productId: number, body: ProductPutRequest, options?: RequestOptions) {
    return this.update({ productId }, body, options);
  }
  updateBySlug(slug: string, body: ProductPutRequest, options?: RequestOptions) {
    return this.update({ slug }, body, options);
  }

  /**
   * PATCH: partial change of an on-sale product (price, discount, auto-offer prices, quantity,
   * is_boosted). Pass `options.current` (the product's prices) to check a new discount or auto-offer
   * price against the price locally.
   */
  patch(ref: ProductRef, body: PatchProductRequest, options?: PatchOptions): Promise<void> {
    return patchProduct(this.ctx, ref, body, options);
  }
  patchBySku(sku: string, body: PatchProductRequest, options?: PatchOptions) {
    return this.patch({ sku }, body, options);
  }
  patchByProductId(productId: number, body: PatchProductRequest, options?: PatchOptions) {
    return this.patch({ productId }, body, options);
  }
  patchBySlug(slug: string, body: PatchProductRequest, options?: PatchOptions) {
    return this.patch({ slug }, body, options);
  }

  /** DELETE (idempotent). `failIfActiveOffers` → 409 ConflictError while offers are active. */
  async delete(
    ref: ProductRef,
    params: { failIfActiveOffers?: boolean } = {},
    options?: RequestOptions,
  ): Promise<void> {
    await this.ctx.requester.call({
      ...refCall(this.ctx, 'products.delete', ref),
      query: { fail_if_active_offers: params.failIfActiveOffers },
      options,
    });
    this.ctx.recent.forget(ref);
  }
  deleteBySku(sku: string, params?: { failIfActiveOffers?: boolean }, options?: RequestOptions) {
    return this.delete({ sku }, params, options);
  }
  deleteByProductId(productId: number, params?: { failIfActiveOffers?: boolean }, options?: RequestOptions) {
    return this.delete({ productId }, params, options);
  }
  deleteBySlug(slug: string, params?: { failIfActiveOffers?: boolean }, options?: RequestOptions) {
    return this.delete({ slug }, params, options);
  }

  /** Mark sold (a sale made elsewhere); call only when the listing is completely sold. */
  async markAsSold(ref: ProductRef, options?: RequestOptions): Promise<void> {
    await this.ctx.requester.call({ ...refCall(this.ctx, 'products.markAsSold', ref), options });
  }
  markAsSoldBySku(sku: string, options?: RequestOptions) {
    return this.markAsSold({ sku }, options);
  }
  markAsSoldByProductId(productId: number, options?: RequestOptions) {
    return this.markAsSold({ productId }, options);
  }
  markAsSoldBySlug(slug: string, options?: RequestOptions) {
    return this.markAsSold({ slug }, options);
  }

  /** Boost the listing (PATCH `is_boosted: true`). */
  boost(ref: ProductRef, options?: RequestOptions): Promise<void> {
    return this.patch(ref, { is_boosted: true }, options);
  }
  /** Stop boosting (PATCH `is_boosted: false`). */
  unboost(ref: ProductRef, options?: RequestOptions): Promise<void> {
    return this.patch(ref, { is_boosted: false }, options);
  }
  /** Set the available quantity (PATCH `quantity`, at least 1); a sold listing goes back on sale. */
  async restock(ref: ProductRef, quantity: number, options?: RequestOptions): Promise<void> {
    await this.ctx.requester.call({
      ...refCall(this.ctx, 'products.patch', ref),
      body: { quantity },
      options,
      rules: () =>
        Number.isInteger(quantity) && quantity >= 1
          ? []
          : [
              violation(
                'quantity',
                'at least 1',
                'validation',
                'restock needs a quantity of at least 1 (sellOut() sets 0)',
              ),
            ],
    });
  }
  /** Sell out (PATCH `quantity: 0`; the listing becomes sold). */
  sellOut(ref: ProductRef, options?: RequestOptions): Promise<void> {
    return this.patch(ref, { quantity: 0 }, options);
  }

  /** Staging only: a test buyer purchases the item (an order appears, `v1:order.new` fires). */
  async simulatePurchase(
    ref: { sku: string } | { productId: number },
    options?: RequestOptions,
  ): Promise<void> {
    await this.ctx.requester.call({ ...refCall(this.ctx, 'products.simulatePurchase', ref), options });
  }
  /** Staging only: a test user likes the item (`v1:product.like` fires). */
  async simulateLike(ref: { sku: string } | { productId: number }, options?: RequestOptions): Promise<void> {
    await this.ctx.requester.call({ ...refCall(this.ctx, 'products.simulateLike', ref), options });
  }
}
