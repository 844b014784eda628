import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as send from './send';
import * as setAutomatic from './setAutomatic';

export const operations: Record<string, OperationModule> = { send, setAutomatic };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['offers'] } },
    options: [
      {
        name: 'Send',
        value: 'send',
        action: 'Send an offer',
        description: 'Send a manual offer to an interested buyer',
      },
      {
        name: 'Set Automatic Offers',
        value: 'setAutomatic',
        action: 'Set automatic offers',
        description: 'Set the auto-send and auto-negotiate offer prices and the discount price',
      },
    ],
    default: 'send',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('offers', name, op.description)),
];
