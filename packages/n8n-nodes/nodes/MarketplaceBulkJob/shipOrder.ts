// Mark Order as Shipped: a parcel's tracking code handed to its order's flow on the deployment (the worker's
// `orderWorkflow`, id `order:<shop>:<purchase>`), which marks the parcel shipped — verified when an answer is
// lost, never sent twice. An update through Temporal's HTTP API, sealed and signed for that workflow alone.
import { createHash } from 'node:crypto';
import {
  NodeOperationError,
  sleep,
  type IDataObject,
  type IExecuteFunctions,
  type INodeProperties,
} from 'n8n-workflow';
import {
  idProblem,
  ORDER_MESSAGES,
  ORDER_NOT_READ_YET,
  shipOnceRead,
  orderWorkflowId,
} from '@selling-kit/temporal-workflows/contract';
import type { TemporalHttp } from './transport/temporal';

const shipOrder = { operation: ['shipOrder'] };

export const shipOrderFields: INodeProperties[] = [
  {
    displayName: 'Shop',
    name: 'orderShop',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'my-shop',
    description: 'The shop that sold, as your deployment names it (its order flow is kept under it)',
    displayOptions: { show: shipOrder },
  },
  {
    displayName: 'Purchase ID',
    name: 'purchaseId',
    type: 'string',
    required: true,
    default: '',
    description: "The order's purchase ID (purchase_id in the order.new event)",
    displayOptions: { show: shipOrder },
  },
  {
    displayName: 'Carrier',
    name: 'carrier',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'ROYAL_MAIL',
    displayOptions: { show: shipOrder },
  },
  {
    displayName: 'Tracking Number',
    name: 'trackingCode',
    type: 'string',
    required: true,
    default: '',
    description: 'Several numbers separated by commas, no spaces',
    displayOptions: { show: shipOrder },
  },
  {
    displayName: 'Parcel ID',
    name: 'parcelId',
    type: 'string',
    default: '',
    description: 'Needed only when the order has several parcels',
    displayOptions: { show: shipOrder },
  },
];

/**
 * The flow's answer: `shipped` (with `verified` when a lost answer was read back), `refused` (the API's code
 * and message: the order keeps waiting), `in_doubt` or `closed` (the order ended). A request the flow turns
 * away (an unknown parcel, an order that has ended) is an error naming why.
 */
export async function shipOrderItem(
  this: IExecuteFunctions,
  temporal: TemporalHttp,
  i: number,
): Promise<IDataObject> {
  const text = (name: string) => String(this.getNodeParameter(name, i, '') ?? '').trim();
  const shopId = text('orderShop');
  const purchaseId = text('purchaseId');
  const bad = idProblem('Shop', shopId) ?? idProblem('Purchase ID', purchaseId);
  if (bad) throw new NodeOperationError(this.getNode(), bad, { itemIndex: i });
  const parcelId = text('parcelId');
  const request = {
    carrier: text('carrier'),
    trackingCode: text('trackingCode'),
    ...(parcelId ? { parcelId } : {}),
  };
  // The same request again (a retried execution) joins the first; the tracking code stays out of the id.
  const updateId = `ship-${createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 24)}`;
  const workflowId = orderWorkflowId(shopId, purchaseId);
  // A flow started a moment ago knows its parcels once it has read the order: until then it refuses the
  // request without recording it, so the same request is sent again (for up to ORDER_READ_WAIT_MS).
  const answer = await shipOnceRead(
    () => temporal.update(workflowId, ORDER_MESSAGES.markShippedUpdate, request, updateId),
    (a) => a.failureType === ORDER_NOT_READ_YET,
    sleep,
  );
  if (answer.statusCode === 404)
    throw new NodeOperationError(
      this.getNode(),
      `Order ${purchaseId} of shop ${shopId} has no order flow (${workflowId})`,
      {
        itemIndex: i,
        description: answer.message,
      },
    );
  if (answer.message !== undefined)
    throw new NodeOperationError(this.getNode(), `Order ${purchaseId}: ${answer.message}`, { itemIndex: i });
  return { shopId, purchaseId, ...(answer.value as IDataObject) };
}
