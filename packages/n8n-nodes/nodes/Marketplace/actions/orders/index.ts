// The Order resource: its operations (one file each, keyed by their Operation value) and its Operation
// choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as get from './get';
import * as list from './list';
import * as markShipped from './markShipped';

export const operations: Record<string, OperationModule> = { get, getAll: list, markShipped };

export const description = resourceDescription('orders', operations, {
  default: 'getAll',
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
});
