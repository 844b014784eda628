// client.offers: manual offers to interested buyers (POST …/offer/ by SKU, product ID or slug), plus
// the automatic offers and discounts, which are product fields set through PATCH.
import type { SubmitOfferRequest } from '../../core/schemas/offers.ts';
import type { OfferProductFacts } from '../../core/rules/offers.ts';
import type { ValidationContext } from '../../core/validate.ts';
import { refCall, type ProductRef } from '../product-ref.ts';
import type { RequestOptions } from '../requester.ts';
import { patchProduct } from './products.ts';
import { Resource } from './resource.ts';

export interface AutoOffers {
  /** Sent automatically to users who liked or bagged the item (must be below the price). */
  auto_send_offer_price?: string;
  /** Incoming offers at or above it are accepted, lower ones countered with it. */
  auto_negotiate_offer_price?: string;
}

export interface SubmitOfferOptions extends RequestOptions {
  /** The product (price, currency, size ids), for the local offer rules 8 and 9. */
  product?: OfferProductFacts;
}

export interface AutoOfferOptions extends RequestOptions {
  /** The product's current prices, for the local price rules. */
  current?: ValidationContext['current'];
}

export class OffersResource extends Resource {
  /**
   * Sends a manual offer to a buyer who showed interest. Not idempotent: a 504 or a timeout ends in
   * OutcomeUnknownError (an offer cannot be looked up to verify).
   */
  async submit(ref: ProductRef, offer: SubmitOfferRequest, options?: SubmitOfferOptions): Promise<void> {
    const { product, ...rest } = options ?? {};
    await this.ctx.requester.call({
      ...refCall(this.ctx, 'offers.submit', ref),
      body: offer,
      options: rest,
      context: product ? { product } : undefined,
    });
  }
  submitBySku(sku: string, offer: SubmitOfferRequest, options?: SubmitOfferOptions) {
    return this.submit({ sku }, offer, options);
  }
  submitByProductId(productId: number, offer: SubmitOfferRequest, options?: SubmitOfferOptions) {
    return this.submit({ productId }, offer, options);
  }
  submitBySlug(slug: string, offer: SubmitOfferRequest, options?: SubmitOfferOptions) {
    return this.submit({ slug }, offer, options);
  }

  /** Sets the automatic offer prices of a listing (PATCH). */
  setAutoOffers(ref: ProductRef, prices: AutoOffers, options?: AutoOfferOptions): Promise<void> {
    return patchProduct(this.ctx, ref, prices, options);
  }

  /** Sets a discount price, shown below the struck-through original price (PATCH). */
  setDiscount(ref: ProductRef, discountPrice: string, options?: AutoOfferOptions): Promise<void> {
    return patchProduct(this.ctx, ref, { discount_price: discountPrice }, options);
  }
}
