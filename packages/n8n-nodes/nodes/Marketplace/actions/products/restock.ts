// Set the quantity of a product (PATCH quantity; a sold product goes back on sale); version 2
// returns the product as it now is.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { isV2, productFields, productRef } from '../common';
import { productOutput } from './output';

export const description: INodeProperties[] = [
  ...productFields,
  {
    displayName: 'Quantity',
    name: 'quantity',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 1,
    description: 'How many of the product are for sale from now on',
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const ref = productRef.call(this, i);
  const quantity = this.getNodeParameter('quantity', i) as number;
  await client.products.restock(ref, quantity);
  return isV2(this) ? productOutput(await client.products.get(ref)) : { ...ref, quantity };
}
