// The Shop resource: its operation and its Operation choice.
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as get from './get';

export const operations: Record<string, OperationModule> = { get };

export const description = resourceDescription('shop', operations, {
  default: 'get',
  options: [{ name: 'Get', value: 'get', action: 'Get the shop', description: 'The seller’s details' }],
});
