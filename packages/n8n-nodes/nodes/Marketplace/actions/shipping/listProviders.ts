// Shipping providers and parcel sizes available from one of the seller's addresses. Version 2 picks
// the address from the seller's addresses and can keep one provider (both dynamic options).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';
import { isV2 } from '../parameters';

const V1 = { show: { '@version': [1] } };
const V2 = { show: { '@version': [{ _cnd: { gte: 2 } }] } };

export const description: INodeProperties[] = [
  {
    displayName: 'Address ID',
    name: 'addressId',
    type: 'number',
    required: true,
    default: 0,
    displayOptions: V1,
  },
  {
    displayName: 'Address Name or ID',
    name: 'addressId',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getAddresses' },
    required: true,
    default: '',
    description:
      'Where the parcel leaves from. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    displayOptions: V2,
  },
  {
    displayName: 'Provider Name or ID',
    name: 'providerId',
    type: 'options',
    typeOptions: { loadOptionsMethod: 'getShippingProviders', loadOptionsDependsOn: ['addressId'] },
    default: '',
    description:
      'Only this provider (empty: all of them). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    displayOptions: V2,
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject[]> {
  const addressId = Number(this.getNodeParameter('addressId', i));
  const providers = await client.shipping.listProviders(addressId);
  const only = isV2(this) ? String(this.getNodeParameter('providerId', i, '') ?? '').trim() : '';
  return (only ? providers.filter((p) => p.id === only) : providers) as unknown as IDataObject[];
}
