// Get one order by its purchase ID.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { orderOperation, purchaseIdField } from '../operation';

export const description: INodeProperties[] = [purchaseIdField];

export const execute = orderOperation(
  async (purchaseId, client) => (await client.orders.get(purchaseId)) as unknown as IDataObject,
);
