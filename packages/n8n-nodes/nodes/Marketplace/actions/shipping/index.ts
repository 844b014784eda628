import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as listAddresses from './listAddresses';
import * as listProviders from './listProviders';

export const operations: Record<string, OperationModule> = { listAddresses, listProviders };

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['shipping'] } },
    options: [
      {
        name: 'Get Addresses',
        value: 'listAddresses',
        action: 'Get the seller addresses',
        description: 'The addresses parcels leave from',
      },
      {
        name: 'Get Providers',
        value: 'listProviders',
        action: 'Get the shipping providers',
        description: 'Providers and parcel sizes from an address',
      },
    ],
    default: 'listAddresses',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('shipping', name, op.description)),
];
