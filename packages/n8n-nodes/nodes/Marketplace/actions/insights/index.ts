// The Insight resource: its operation and its Operation choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as get from './get';

export const operations: Record<string, OperationModule> = { get };

export const description = resourceDescription('insights', operations, {
  default: 'get',
  options: [
    {
      name: 'Get',
      value: 'get',
      action: 'Get insights',
      description: 'Views, likes and sales of the shop or a product',
    },
  ],
});
