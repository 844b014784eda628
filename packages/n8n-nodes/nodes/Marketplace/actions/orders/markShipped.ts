import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { SellingClient } from '@selling-kit/api-client/client';

/** Record a parcel's shipment with its tracking numbers. */
export const description: INodeProperties[] = [
  { displayName: 'Purchase ID', name: 'purchaseId', type: 'string', required: true, default: '' },
  { displayName: 'Parcel ID', name: 'parcelId', type: 'string', required: true, default: '' },
  {
    displayName: 'Tracking Number',
    name: 'trackingNumber',
    type: 'string',
    required: true,
    default: '',
    description: 'Comma-separated tracking numbers, no spaces',
  },
  { displayName: 'Carrier', name: 'carrier', type: 'string', required: true, default: '' },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const purchaseId = this.getNodeParameter('purchaseId', i) as string;
  const parcelId = this.getNodeParameter('parcelId', i) as string;
  const body = {
    tracking_number: this.getNodeParameter('trackingNumber', i) as string,
    carrier: this.getNodeParameter('carrier', i) as string,
  };
  await client.orders.markParcelShipped(purchaseId, parcelId, body);
  return { purchaseId, parcelId, ...body, shipped: true };
}
