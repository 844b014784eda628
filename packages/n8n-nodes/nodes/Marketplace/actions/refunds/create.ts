import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { RefundOrderRequest, SellingClient } from '@selling-kit/api-client/client';
import { compact } from '../common';

/** Refund an order: items and/or shipping, within what was paid. */
export const description: INodeProperties[] = [
  { displayName: 'Purchase ID', name: 'purchaseId', type: 'string', required: true, default: '' },
  {
    displayName: 'Refund',
    name: 'refund',
    type: 'collection',
    placeholder: 'Add Field',
    default: {},
    options: [
      {
        displayName: 'Items Refund Amount',
        name: 'items_refund_amount',
        type: 'string',
        default: '',
        placeholder: '10.00',
      },
      { displayName: 'Message to the Buyer', name: 'send_buyer_message', type: 'string', default: '' },
      {
        displayName: 'Shipping Refund Amount',
        name: 'shipping_refund_amount',
        type: 'string',
        default: '',
        placeholder: '3.50',
      },
    ],
  },
];

export async function execute(
  this: IExecuteFunctions,
  i: number,
  client: SellingClient,
): Promise<IDataObject> {
  const purchaseId = this.getNodeParameter('purchaseId', i) as string;
  const body = compact(this.getNodeParameter('refund', i, {}) as IDataObject) as RefundOrderRequest;
  await client.refunds.create(purchaseId, body);
  return { purchaseId, ...body, refunded: true };
}
