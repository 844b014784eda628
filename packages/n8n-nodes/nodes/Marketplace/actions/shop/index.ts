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
    displayOptions: { show: { resource: ['shop'] } },
    options: [{ name: 'Get', value: 'get', action: 'Get the shop', description: 'The seller’s details' }],
    default: 'get',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('shop', name, op.description)),
];
