import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { labelledOptions } from '../options';
import { productFields } from '../productFields';
import { productRef } from '../productRef';

/** Live insights of the shop, or of one product. */
export const description: INodeProperties[] = [
  {
    displayName: 'Of',
    name: 'scope',
    type: 'options',
    options: labelledOptions({ shop: 'The Shop', product: 'A Product' }),
    default: 'shop',
  },
  ...productFields.map((f) => ({
    ...f,
    displayOptions: { show: { ...f.displayOptions?.show, scope: ['product'] } },
  })),
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const scope = this.getNodeParameter('scope', i) as string;
  const result =
    scope === 'product'
      ? await client.insights.product(productRef.call(this, i))
      : await client.insights.shop();
  return result as unknown as IDataObject;
}
