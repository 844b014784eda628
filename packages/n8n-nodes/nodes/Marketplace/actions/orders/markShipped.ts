// Record a parcel's shipment with its tracking numbers.
import type { INodeProperties } from 'n8n-workflow';
import { orderOperation, purchaseIdField } from '../operation';

export const description: INodeProperties[] = [
  purchaseIdField,
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

export const execute = orderOperation(async function (purchaseId, client, i) {
  const parcelId = this.getNodeParameter('parcelId', i) as string;
  const body = {
    tracking_number: this.getNodeParameter('trackingNumber', i) as string,
    carrier: this.getNodeParameter('carrier', i) as string,
  };
  await client.orders.markParcelShipped(purchaseId, parcelId, body);
  return { purchaseId, parcelId, ...body, shipped: true };
});
