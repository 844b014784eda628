import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as create from './create';

export const operations: Record<string, OperationModule> = { create };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['refunds'] } },
    options: [
      {
        name: 'Create',
        value: 'create',
        action: 'Refund an order',
        description: 'Refund an order, in full or in part',
      },
    ],
    default: 'create',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('refunds', name, op.description)),
];
