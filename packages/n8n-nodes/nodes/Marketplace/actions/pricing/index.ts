import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as inspiration from './inspiration';

export const operations: Record<string, OperationModule> = { inspiration };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['pricing'] } },
    options: [
      {
        name: 'Get Inspiration',
        value: 'inspiration',
        action: 'Get pricing inspiration',
        description: 'A suggested price and similar sold items',
      },
    ],
    default: 'inspiration',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('pricing', name, op.description)),
];
