// The Shipping resource: its operations (one file each, keyed by their Operation value) and its
// Operation choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as listAddresses from './listAddresses';
import * as listProviders from './listProviders';

export const operations: Record<string, OperationModule> = { listAddresses, listProviders };

export const description = resourceDescription('shipping', operations, {
  default: 'listAddresses',
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
});
