// Refund an order: items and/or shipping, within what was paid.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import type { RefundOrderRequest } from '@selling-kit/api-client/client';
import { orderOperation, purchaseIdField } from '../operation';
import { compact } from '../parameters';

export const description: INodeProperties[] = [
  purchaseIdField,
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

export const execute = orderOperation(async function (purchaseId, client, i) {
  const body = compact(this.getNodeParameter('refund', i, {}) as IDataObject) as RefundOrderRequest;
  await client.refunds.create(purchaseId, body);
  return { purchaseId, ...body, refunded: true };
});
