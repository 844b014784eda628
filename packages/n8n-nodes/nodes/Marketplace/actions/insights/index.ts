import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as get from './get';

export const operations: Record<string, OperationModule> = { get };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['insights'] } },
    options: [
      {
        name: 'Get',
        value: 'get',
        action: 'Get insights',
        description: 'Views, likes and sales of the shop or a product',
      },
    ],
    default: 'get',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('insights', name, op.description)),
];
