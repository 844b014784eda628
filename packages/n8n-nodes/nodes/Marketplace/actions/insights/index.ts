// The Insight resource: its one operation and its Operation choice.
import { singleOperationResource } from '../resource';
import * as get from './get';

export const { operations, description } = singleOperationResource('insights', 'get', get, {
  name: 'Get',
  action: 'Get insights',
  description: 'Views, likes and sales of the shop or a product',
});
