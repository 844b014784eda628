// The offers-to-likers activity: one manual offer to one liker, priced from the listing as it is now
// (its current price and currency), at the configured discount and never less than the API's minimum
// percentage below the price. An offer cannot be looked up afterwards (the API lists no offers), so an
// answer that may or may not have landed — a 5xx, a 504, a timeout, a connection lost after the request
// left — is never sent again: it is reported as `outcome_unknown`, and the liker counts as offered.
//
// Two modes. `settle` (workflows from 0.4, which make ONE attempt of this activity and decide themselves):
// every answer is an outcome, never a failure — `retry` when nothing was sent (429, a 5xx on the price
// lookup, a token-store blip), `failed` for a refusal (401/403 of a revoked key, a 4xx), so one liker
// never fails the listing's workflow. Without it (runs recorded before 0.4, which let Temporal retry):
// what happens before the offer leaves is thrown for Temporal to retry, as before; a repeated attempt
// whose earlier one may have sent the offer sends nothing (the heartbeat marks the send).
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  DEFAULT_MIN_PERCENT_OFF,
  formatMoney,
  maxAmountPercentBelow,
  parseMoney,
} from '@selling-kit/api-client/core';
import {
  OutcomeUnknownError,
  RateLimitedError,
  SellingApiError,
  TransportError,
} from '@selling-kit/api-client';
import type { ShopRef } from '../types.ts';
import type { LikerOfferOutcome } from '../webhooks/sales-types.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

/** The offer in cents: `percentOff` below the price, and at least `minPercentOff` below it. */
export function offerCents(priceCents: number, percentOff: number, minPercentOff = DEFAULT_MIN_PERCENT_OFF) {
  return Math.min(
    Math.floor((priceCents * (100 - percentOff)) / 100),
    maxAmountPercentBelow(priceCents, Math.max(percentOff, minPercentOff)),
  );
}

/** The heartbeat recorded just before the offer leaves: a later attempt then knows it may have landed. */
const SUBMITTING = 'submitting';
/** The wait after a 429 that names none. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

export interface SendLikerOfferOptions {
  /** Every answer is an outcome (see the header); the workflow makes one attempt. */
  settle?: boolean;
}

/** A refusal of the credential or of the request itself: asking again the same way gets the same. */
const isRefusal = (e: SellingApiError) => e.status !== undefined && e.status < 500 && e.status !== 429;

/** Short, secret-free: the status and code of an API answer, or the error's name. */
function describe(error: unknown): string {
  if (error instanceof SellingApiError) return `${error.status ?? 'no answer'} ${error.code}`;
  if (error instanceof ApplicationFailure) return error.type ?? 'ApplicationFailure';
  return error instanceof Error ? error.name : 'error';
}

/**
 * What the lookup before the offer (or anything before the offer leaves) met, in settle mode: nothing
 * was sent, so a 429, a 5xx or a blip is a `retry`; a refusal is the liker's `failed`.
 */
function beforeSend(error: unknown): LikerOfferOutcome {
  if (error instanceof RateLimitedError)
    return { status: 'retry', code: error.code, retryAfterMs: error.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS };
  if (error instanceof SellingApiError && isRefusal(error))
    return { status: 'failed', code: error.code, errorId: error.errorId };
  if (error instanceof ApplicationFailure && error.nonRetryable)
    return { status: 'failed', code: error.type ?? 'non_retryable' };
  return { status: 'retry', code: describe(error) };
}

/** The offer may have landed: never sent again. */
const inDoubt = (error: unknown): LikerOfferOutcome => ({
  status: 'failed',
  code: 'outcome_unknown',
  detail: describe(error),
});

export function createOfferActivities({ clients }: ActivityContext) {
  return {
    async sendLikerOffer(
      shop: ShopRef,
      productId: number,
      likerId: number,
      percentOff: number,
      minPercentOff?: number,
      { settle = false }: SendLikerOfferOptions = {},
    ): Promise<LikerOfferOutcome> {
      const ctx = Context.current();
      // An earlier attempt got as far as sending: it may have landed.
      if (ctx.info.attempt > 1 && ctx.info.heartbeatDetails === SUBMITTING)
        return { status: 'failed', code: 'outcome_unknown', detail: 'an earlier attempt was sending' };
      const signal = ctx.cancellationSignal;
      let client;
      let product;
      try {
        client = await clients.clientFor(shop);
        product = await client.products.getByProductId(productId, { signal });
      } catch (error) {
        if (error instanceof SellingApiError && error.code === 'product_not_found')
          return { status: 'not_on_sale' };
        if (settle) return beforeSend(error);
        if (error instanceof ApplicationFailure) throw error;
        return toActivityFailure(error);
      }
      if (product.status !== 'STATUS_ONSALE') return { status: 'not_on_sale' };
      const price = parseMoney(product.price_amount);
      if (price === null) return { status: 'failed', code: 'unreadable_price' };
      const cents = offerCents(price, percentOff, minPercentOff);
      if (cents < 1) return { status: 'failed', code: 'offer_below_minimum' };
      const value = Number(formatMoney(cents));
      const currency = product.price_currency;
      ctx.heartbeat(SUBMITTING);
      try {
        await client.offers.submit(
          { productId },
          { offer_recipient_id: likerId, offer_value: value, offer_currency: currency },
          { signal, product: { price_amount: product.price_amount, price_currency: currency } },
        );
        return { status: 'sent', value, currency };
      } catch (error) {
        if (error instanceof OutcomeUnknownError) return inDoubt(error);
        // A connection that never opened: nothing left (a 429 is the gateway's: nothing reached the API).
        const notSent =
          error instanceof RateLimitedError || (error instanceof TransportError && !error.requestSent);
        if (error instanceof SellingApiError && error.status !== undefined && isRefusal(error)) {
          if (error.code === 'product_not_on_sale') return { status: 'not_on_sale' };
          if (settle || (error.status !== 401 && error.status !== 403))
            return { status: 'failed', code: error.code, errorId: error.errorId };
          return toActivityFailure(error);
        }
        if (notSent) return settle ? beforeSend(error) : toActivityFailure(error);
        // A 5xx (the offers system may have committed before failing), a timeout, a lost connection, or
        // anything else once the request may have left.
        return inDoubt(error);
      }
    },
  };
}
