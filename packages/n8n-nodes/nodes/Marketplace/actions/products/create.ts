import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { ProductCreateRequest, SellingClient } from '@selling-kit/api-client/client';
import { listingBody, listingFields } from './listingFields';

export const description: INodeProperties[] = [
  {
    displayName: 'SKU',
    name: 'newSku',
    type: 'string',
    default: '',
    description:
      'Your reference for the listing; with it, a create that times out is verified instead of repeated',
  },
  ...listingFields,
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const sku = (this.getNodeParameter('newSku', i, '') as string).trim();
  const body = { ...(sku ? { sku } : {}), ...listingBody.call(this, i) } as unknown as ProductCreateRequest;
  return (await client.products.create(body)) as unknown as IDataObject;
}
