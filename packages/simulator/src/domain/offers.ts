// Manual offers to interested buyers: rules 8 and 9 (shared checks) plus the product's state and the
// recipient's interest. Offers live 24 hours on the simulator's clock.
import { checkOffer, OFFER_LIFETIME_MS } from '@selling-kit/api-client/core';
import { randomUUID } from 'node:crypto';
import { apiError } from '../errors.ts';
import type { SimulatorConfig } from '../config.ts';
import type { OfferRecord, ProductRecord, SellerState } from '../state.ts';
import { requireOnboardedSeller } from './product-checks.ts';

export function submitOffer(
  config: SimulatorConfig,
  seller: SellerState,
  record: ProductRecord,
  body: unknown,
  now: number,
): OfferRecord {
  if (record.state === 'banned')
    throw apiError('product_has_been_banned', `product ${record.productId} has been banned`);
  if (record.state !== 'selling')
    throw apiError(
      'product_not_on_sale',
      `product ${record.productId} is not on sale (it is ${record.state})`,
    );
  requireOnboardedSeller(seller);
  const multiSize = (record.variantSizeIds ?? []).length > 0;
  const sizeIds = multiSize
    ? record.variantSizeIds!
    : record.fields.size_id === undefined
      ? []
      : [Number(record.fields.size_id)];
  const violations = checkOffer(
    body,
    {
      price_amount: String(record.fields.price_amount),
      price_currency: String(record.fields.price_currency),
      hasSizes: sizeIds.length > 0,
      multiSize,
      sizeIds,
    },
    { minPercentOff: config.minPercentOff },
  );
  const first = violations[0];
  if (first) throw apiError(first.code, first.message);
  const b = body as {
    offer_recipient_id: number;
    offer_value: number;
    offer_currency: string;
    size_id?: number;
  };
  // SPEC GAP (interest): the public reference requires the recipient to have shown interest; the
  // simulator models interest as a like.
  if (!record.likes.has(b.offer_recipient_id)) {
    throw apiError(
      'validation',
      `user ${b.offer_recipient_id} has not shown interest in product ${record.productId} (like it first)`,
    );
  }
  const offer: OfferRecord = {
    id: randomUUID(),
    productId: record.productId,
    recipientId: b.offer_recipient_id,
    value: b.offer_value,
    currency: b.offer_currency,
    sizeId: b.size_id,
    createdAt: now,
    expiresAt: now + OFFER_LIFETIME_MS,
    state: 'active',
  };
  seller.offers.push(offer);
  return offer;
}
