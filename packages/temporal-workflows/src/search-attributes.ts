// Search attributes that make jobs findable in the Temporal UI and CLI, e.g.
// `SellingKitShop = "1001" AND SellingKitOperation = "create"`. A server must know them first:
// `temporal server start-dev --search-attribute SellingKitShop=Keyword …` (SEARCH_ATTRIBUTE_FLAGS), or
// `temporal operator search-attribute create --name SellingKitShop --type Keyword` on a real cluster.
// Plain data (no runtime import), so workflow code uses it too (children of many-shop jobs).
import type { defineSearchAttributeKey, SearchAttributePair } from '@temporalio/common';

type KeywordKey = ReturnType<typeof defineSearchAttributeKey<'KEYWORD'>>;
const keyword = (name: string): KeywordKey => ({ name, type: 'KEYWORD' });

export const SHOP_ATTRIBUTE = keyword('SellingKitShop');
export const JOB_ATTRIBUTE = keyword('SellingKitJobId');
export const OPERATION_ATTRIBUTE = keyword('SellingKitOperation');

/** Flags for `temporal server start-dev` that register the attributes. */
export const SEARCH_ATTRIBUTE_FLAGS = [SHOP_ATTRIBUTE, JOB_ATTRIBUTE, OPERATION_ATTRIBUTE].flatMap((k) => [
  '--search-attribute',
  `${k.name}=Keyword`,
]);

export function jobSearchAttributes(shopId: string, jobId: string, operation: string): SearchAttributePair[] {
  return [
    { key: SHOP_ATTRIBUTE, value: shopId },
    { key: JOB_ATTRIBUTE, value: jobId },
    { key: OPERATION_ATTRIBUTE, value: operation },
  ];
}
