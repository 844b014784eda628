// The Refund resource: its operation and its Operation choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as create from './create';

export const operations: Record<string, OperationModule> = { create };

export const description = resourceDescription('refunds', operations, {
  default: 'create',
  options: [
    {
      name: 'Create',
      value: 'create',
      action: 'Refund an order',
      description: 'Refund an order, in full or in part',
    },
  ],
});
