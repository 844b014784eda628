// Get one product by the picker (version 2) or version 1's key fields.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { productOperation } from '../operation';
import { isV2 } from '../parameters';
import { productFields } from '../productFields';
import { productOutput } from './output';

export const description: INodeProperties[] = [...productFields];

export const execute = productOperation(async function (ref, client) {
  const product = await client.products.get(ref);
  return isV2(this) ? productOutput(product) : (product as unknown as IDataObject);
});
