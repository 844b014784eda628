// The Shop resource: its one operation and its Operation choice.
import { singleOperationResource } from '../resource';
import * as get from './get';

export const { operations, description } = singleOperationResource('shop', 'get', get, {
  name: 'Get',
  action: 'Get the shop',
  description: 'The seller’s details',
});
