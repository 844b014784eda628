import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as get from './get';
import * as list from './list';
import * as markShipped from './markShipped';

export const operations: Record<string, OperationModule> = { get, getAll: list, markShipped };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['orders'] } },
    options: [
      { name: 'Get', value: 'get', action: 'Get an order', description: 'Get an order by purchase ID' },
      { name: 'Get Many', value: 'getAll', action: 'Get many orders', description: 'List the shop’s orders' },
      {
        name: 'Mark Parcel Shipped',
        value: 'markShipped',
        action: 'Mark a parcel shipped',
        description: 'Record a parcel’s tracking',
      },
    ],
    default: 'getAll',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('orders', name, op.description)),
];
