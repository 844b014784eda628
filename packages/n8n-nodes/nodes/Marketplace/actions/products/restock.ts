// Set the quantity of a product (PATCH quantity; a sold product goes back on sale); version 2
// returns the product as it now is.
import type { INodeProperties } from 'n8n-workflow';
import { productFields } from '../productFields';
import { productChange } from './productChange';

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

export const execute = productChange(async function (ref, client, i) {
  const quantity = this.getNodeParameter('quantity', i) as number;
  await client.products.restock(ref, quantity);
  return { quantity };
});
