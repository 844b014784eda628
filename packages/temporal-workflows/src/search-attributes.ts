// Search attributes that make jobs findable in the Temporal UI and CLI, e.g.
// `SellingKitShop = "1001" AND SellingKitOperation = "create"`. A server must know them first:
// `temporal server start-dev --search-attribute SellingKitShop=Keyword …` (SEARCH_ATTRIBUTE_FLAGS), or
// `temporal operator search-attribute create --name SellingKitShop --type Keyword` on a real cluster.
// Plain data (no runtime import), so workflow code uses it too (children of many-shop jobs). The names
// are the contract's (contract.ts SEARCH_ATTRIBUTE_NAMES); these are the SDK's typed keys for them.
import type { defineSearchAttributeKey, SearchAttributePair } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_NAMES, WORKFLOW_TYPES } from './contract.ts';
import type { OrderPhase } from './webhooks/order-types.ts';

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

/** Which order flows to list: running ones unless `all`; of one shop; only those needing a person. */
export interface OrderFlowFilter {
  shopId?: string;
  /** Past their last on-time reminder (`at_risk`), or with a mark-as-shipped in doubt (`ship_in_doubt`). */
  atRisk?: boolean;
  all?: boolean;
}

/** The states a person must look at: the order is late, or its parcel may or may not be marked shipped. */
const NEEDS_A_PERSON = ['at_risk', 'ship_in_doubt'] as const satisfies readonly OrderPhase[];

/** The visibility query of the order flows a filter names (the CLI's list, the daily reconciliation). */
export function orderFlowsQuery(filter: OrderFlowFilter): string {
  const quote = (v: string) => `'${v.replace(/['\\]/g, '')}'`;
  return [
    `WorkflowType = ${quote(WORKFLOW_TYPES.order)}`,
    ...(filter.all ? [] : [`ExecutionStatus = 'Running'`]),
    ...(filter.shopId ? [`${SEARCH_ATTRIBUTE_NAMES.shop} = ${quote(filter.shopId)}`] : []),
    ...(filter.atRisk
      ? [`${SEARCH_ATTRIBUTE_NAMES.orderState} IN (${NEEDS_A_PERSON.map(quote).join(', ')})`]
      : []),
  ].join(' AND ');
}
