// Activities of the delist-on-sale flow: what an order sold (looked up on its shop, with the SKU each
// other shop knows it by), one mark-as-sold per shop and SKU, and the recent orders the missed-webhook
// catch-up walks. Mark-as-sold goes out like the sale lane's (workflows/sale.ts): one request, in the
// general group's reserve, never behind a bulk window.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { SellingApiError } from '@selling-kit/api-client';
import type { ShopRef } from '../types.ts';
import type { DelistOutcome, SoldItem } from '../webhooks/sales-types.ts';
import { createSkuMapCache, SkuMapError } from '../webhooks/sku-map.ts';
import { feedPolicy } from './feed-policy.ts';
import type { ActivityContext } from './context.ts';
import { toActivityFailure } from './send.ts';

const ON_SALE = 'STATUS_ONSALE';

export interface DelistPlan {
  items: SoldItem[];
  /** What to mark sold: one line per other shop and sold SKU. */
  targets: { shopId: string; sku: string }[];
}

export function createDelistActivities({ clients, deps }: ActivityContext) {
  // The mapping file's path comes with the flow's input: read inside the worker's feed roots only.
  const skuMaps = createSkuMapCache(deps.feedPolicy ?? feedPolicy());
  return {
    /**
     * The order's listings on the source shop (SKU, quantity left) and, for each other shop, the SKU to
     * mark sold there (the mapping file's, else the same). A listing still on sale at the source (it
     * had more than one) is delisted nowhere; a listing without SKU cannot be found elsewhere.
     */
    async planDelist(
      source: ShopRef,
      productIds: number[],
      shops: ShopRef[],
      skuMapPath?: string,
    ): Promise<DelistPlan> {
      let map;
      try {
        map = skuMapPath ? await skuMaps(skuMapPath) : undefined;
      } catch (e) {
        if (e instanceof SkuMapError) throw ApplicationFailure.nonRetryable(e.message, e.code);
        throw e;
      }
      const client = await clients.clientFor(source);
      const signal = Context.current().cancellationSignal;
      const items: SoldItem[] = [];
      try {
        for (const productId of [...new Set(productIds)]) {
          const p = await client.products.getByProductId(productId, { signal });
          items.push({
            productId,
            sku: p.sku ?? null,
            remaining: p.status === ON_SALE ? p.quantity : 0,
          });
        }
      } catch (error) {
        return toActivityFailure(error);
      }
      const targets: DelistPlan['targets'] = [];
      for (const item of items) {
        if (item.sku === null || item.remaining > 0) continue;
        for (const shop of shops) {
          if (shop.shopId === source.shopId) continue;
          targets.push({
            shopId: shop.shopId,
            sku: map ? map.skuOn(source.shopId, item.sku, shop.shopId) : item.sku,
          });
        }
      }
      return { items, targets };
    },

    /**
     * Marks one SKU sold on one shop. Answers the API gives for a listing that cannot be sold there are
     * outcomes, not failures: absent → `not_listed`, not on sale → `already_sold` (sold there too, or a
     * retried attempt's first request landed). 429 and 5xx are retried by Temporal.
     */
    async delistSku(shop: ShopRef, sku: string): Promise<DelistOutcome> {
      const client = await clients.clientFor(shop);
      try {
        await client.products.markAsSold({ sku }, { signal: Context.current().cancellationSignal });
        return { shopId: shop.shopId, sku, status: 'sold' };
      } catch (error) {
        if (error instanceof SellingApiError && error.status !== undefined && error.status < 500) {
          if (error.code === 'product_not_found') return { shopId: shop.shopId, sku, status: 'not_listed' };
          if (error.code === 'product_not_on_sale')
            return { shopId: shop.shopId, sku, status: 'already_sold' };
          if (error.status !== 429 && error.status !== 401 && error.status !== 403)
            return { shopId: shop.shopId, sku, status: 'failed', code: error.code, errorId: error.errorId };
        }
        return toActivityFailure(error);
      }
    },

    /** Orders of the shop created since `since` (ISO date-time), with their products, all pages. */
    async listRecentSales(
      shop: ShopRef,
      since: string,
    ): Promise<{ purchaseId: string; productIds: number[] }[]> {
      const out: { purchaseId: string; productIds: number[] }[] = [];
      try {
        for await (const order of (await clients.clientFor(shop)).orders.list({ from: since, limit: 200 })) {
          out.push({ purchaseId: order.purchase_id, productIds: order.line_items.map((l) => l.product_id) });
          Context.current().heartbeat();
        }
      } catch (error) {
        if (error instanceof ApplicationFailure) throw error;
        return toActivityFailure(error);
      }
      return out;
    },
  };
}
