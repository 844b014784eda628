// Handlers for the "offers" operations: manual offers by SKU, product ID or slug.
import { PRODUCT_KEYS } from '@selling-kit/api-client/core';
import { findProductForChange } from '../domain/product-lookup.ts';
import { submitOffer } from '../domain/offers.ts';
import { keyParam, keySuffix } from './products.ts';
import type { Handlers } from './types.ts';

export const offersHandlers: Handlers = Object.fromEntries(
  PRODUCT_KEYS.map((key) => [
    `offers.submit${keySuffix(key)}`,
    (ctx) => {
      const record = findProductForChange(ctx.seller, key, keyParam(ctx.params, key), ctx.now);
      submitOffer(ctx.config, ctx.seller, record, ctx.body, ctx.now);
      return {};
    },
  ]),
);
