// Search attributes that make jobs findable in the Temporal UI and CLI, e.g.
// `SellingKitShop = "1001" AND SellingKitOperation = "create"`. A server must know them first:
// `temporal server start-dev --search-attribute SellingKitShop=Keyword …` (SEARCH_ATTRIBUTE_FLAGS), or
// `temporal operator search-attribute create --name SellingKitShop --type Keyword` on a real cluster.
// Plain data (no runtime import), so workflow code uses it too (children of many-shop jobs). The names
// are the contract's (contract.ts SEARCH_ATTRIBUTE_NAMES); these are the SDK's typed keys for them.
import type { defineSearchAttributeKey, SearchAttributePair } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_NAMES } from './contract.ts';

export { SEARCH_ATTRIBUTE_FLAGS } from './contract.ts';

type KeywordKey = ReturnType<typeof defineSearchAttributeKey<'KEYWORD'>>;
const keyword = (name: string): KeywordKey => ({ name, type: 'KEYWORD' });

export const SHOP_ATTRIBUTE = keyword(SEARCH_ATTRIBUTE_NAMES.shop);
export const JOB_ATTRIBUTE = keyword(SEARCH_ATTRIBUTE_NAMES.jobId);
export const OPERATION_ATTRIBUTE = keyword(SEARCH_ATTRIBUTE_NAMES.operation);

export function jobSearchAttributes(shopId: string, jobId: string, operation: string): SearchAttributePair[] {
  return [
    { key: SHOP_ATTRIBUTE, value: shopId },
    { key: JOB_ATTRIBUTE, value: jobId },
    { key: OPERATION_ATTRIBUTE, value: operation },
  ];
}

export const ORDER_STATE_ATTRIBUTE = keyword(SEARCH_ATTRIBUTE_NAMES.orderState);

/** An order flow's attributes: its shop and its phase (or how it ended). */
export function orderSearchAttributes(shopId: string, state: string): SearchAttributePair[] {
  return [
    { key: SHOP_ATTRIBUTE, value: shopId },
    { key: ORDER_STATE_ATTRIBUTE, value: state },
  ];
}
