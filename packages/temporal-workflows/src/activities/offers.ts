// The offers-to-likers activity: one manual offer to one liker, priced from the listing as it is now
// (its current price and currency), at the configured discount and never less than the API's minimum
// percentage below the price. An offer cannot be looked up afterwards, so an answer that may or may not
// have landed (504, timeout) is never sent again: it is reported, and the liker counts as offered.
import { Context } from '@temporalio/activity';
import {
  DEFAULT_MIN_PERCENT_OFF,
  formatMoney,
  maxAmountPercentBelow,
  parseMoney,
} from '@selling-kit/api-client/core';
import { OutcomeUnknownError, SellingApiError } from '@selling-kit/api-client';
import type { ShopRef } from '../types.ts';
import type { LikerOfferOutcome } from '../sales-types.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

/** The offer in cents: `percentOff` below the price, and at least `minPercentOff` below it. */
export function offerCents(priceCents: number, percentOff: number, minPercentOff = DEFAULT_MIN_PERCENT_OFF) {
  return Math.min(
    Math.floor((priceCents * (100 - percentOff)) / 100),
    maxAmountPercentBelow(priceCents, Math.max(percentOff, minPercentOff)),
  );
}

export function createOfferActivities({ clients }: ActivityContext) {
  return {
    async sendLikerOffer(
      shop: ShopRef,
      productId: number,
      likerId: number,
      percentOff: number,
      minPercentOff?: number,
    ): Promise<LikerOfferOutcome> {
      const client = await clients.clientFor(shop);
      const signal = Context.current().cancellationSignal;
      let product;
      try {
        product = await client.products.getByProductId(productId, { signal });
      } catch (error) {
        if (error instanceof SellingApiError && error.code === 'product_not_found')
          return { status: 'not_on_sale' };
        return toActivityFailure(error);
      }
      if (product.status !== 'STATUS_ONSALE') return { status: 'not_on_sale' };
      const price = parseMoney(product.price_amount);
      if (price === null) return { status: 'failed', code: 'unreadable_price' };
      const cents = offerCents(price, percentOff, minPercentOff);
      if (cents < 1) return { status: 'failed', code: 'offer_below_minimum' };
      const value = Number(formatMoney(cents));
      const currency = product.price_currency;
      try {
        await client.offers.submit(
          { productId },
          { offer_recipient_id: likerId, offer_value: value, offer_currency: currency },
          { signal, product: { price_amount: product.price_amount, price_currency: currency } },
        );
        return { status: 'sent', value, currency };
      } catch (error) {
        if (error instanceof OutcomeUnknownError) return { status: 'failed', code: 'outcome_unknown' };
        if (error instanceof SellingApiError && error.status !== undefined && error.status < 500) {
          if (error.code === 'product_not_on_sale') return { status: 'not_on_sale' };
          if (error.status !== 429 && error.status !== 401 && error.status !== 403)
            return { status: 'failed', code: error.code, errorId: error.errorId };
        }
        return toActivityFailure(error);
      }
    },
  };
}
