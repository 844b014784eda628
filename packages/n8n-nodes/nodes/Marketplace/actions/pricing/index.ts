// The Pricing resource: its operation and its Operation choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as inspiration from './inspiration';

export const operations: Record<string, OperationModule> = { inspiration };

export const description = resourceDescription('pricing', operations, {
  default: 'inspiration',
  options: [
    {
      name: 'Get Inspiration',
      value: 'inspiration',
      action: 'Get pricing inspiration',
      description: 'A suggested price and similar sold items',
    },
  ],
});
