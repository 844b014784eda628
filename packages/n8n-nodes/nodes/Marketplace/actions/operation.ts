// What one operation file exports (its fields and its `execute`), and the two `execute` wrappers of
// the operations on one product or one order: the item's product or purchase ID is read (and checked)
// before the operation runs.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import type { ProductRef } from '@selling-kit/api-client/core';
import { productRef } from './productRef';

/** One operation: its fields and what it does for item `i`. */
export interface OperationModule {
  description: INodeProperties[];
  execute(this: IExecuteFunctions, i: number, client: SellingClient): Promise<IDataObject | IDataObject[]>;
}

/** `execute` of an operation on the product the item names: the picker is read (and checked) first. */
export function productOperation(
  run: (this: IExecuteFunctions, ref: ProductRef, client: SellingClient, i: number) => Promise<IDataObject>,
): OperationModule['execute'] {
  return async function execute(this: IExecuteFunctions, i: number, client: SellingClient) {
    return run.call(this, productRef.call(this, i), client, i);
  };
}

/** The order an order-scoped operation acts on (Order → Get and Mark Parcel Shipped, Refund → Create). */
export const purchaseIdField: INodeProperties = {
  displayName: 'Purchase ID',
  name: 'purchaseId',
  type: 'string',
  required: true,
  default: '',
};

/** `execute` of an operation on the order the item names by its purchase ID (read first). */
export function orderOperation(
  run: (
    this: IExecuteFunctions,
    purchaseId: string,
    client: SellingClient,
    i: number,
  ) => Promise<IDataObject>,
): OperationModule['execute'] {
  return async function execute(this: IExecuteFunctions, i: number, client: SellingClient) {
    return run.call(this, this.getNodeParameter('purchaseId', i) as string, client, i);
  };
}
