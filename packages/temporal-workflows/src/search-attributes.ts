// Search attributes that make jobs findable in the Temporal UI and CLI, e.g.
// `SellingKitShop = "1001" AND SellingKitOperation = "create"`. A server must know them first:
// `temporal server start-dev --search-attribute SellingKitShop=Keyword …` (SEARCH_ATTRIBUTE_FLAGS), or
// `temporal operator search-attribute create --name SellingKitShop --type Keyword` on a real cluster.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

export const SHOP_ATTRIBUTE = defineSearchAttributeKey('SellingKitShop', SearchAttributeType.KEYWORD);
export const JOB_ATTRIBUTE = defineSearchAttributeKey('SellingKitJobId', SearchAttributeType.KEYWORD);
export const OPERATION_ATTRIBUTE = defineSearchAttributeKey(
  'SellingKitOperation',
  SearchAttributeType.KEYWORD,
);

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
