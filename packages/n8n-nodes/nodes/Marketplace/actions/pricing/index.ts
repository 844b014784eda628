// The Pricing resource: its one operation and its Operation choice.
import { singleOperationResource } from '../resource';
import * as inspiration from './inspiration';

export const { operations, description } = singleOperationResource('pricing', 'inspiration', inspiration, {
  name: 'Get Inspiration',
  action: 'Get pricing inspiration',
  description: 'A suggested price and similar sold items',
});
