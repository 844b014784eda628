// Stop boosting a product; version 2 returns the product as it now is.
import type { INodeProperties } from 'n8n-workflow';
import { productFields } from '../productFields';
import { productChange } from './productChange';

export const description: INodeProperties[] = [...productFields];

export const execute = productChange(async (ref, client) => {
  await client.products.unboost(ref);
  return { boosted: false };
});
