import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { productRef, productRefFields } from '../common';

/** Set the quantity of a listing (PATCH quantity); a full update restocks a sold one. */
export const description: INodeProperties[] = [
  ...productRefFields,
  { displayName: 'Quantity', name: 'quantity', type: 'number', typeOptions: { minValue: 1 }, default: 1 },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const quantity = this.getNodeParameter('quantity', i) as number;
  await client.products.restock(ref, quantity);
  return { ...ref, quantity };
}
