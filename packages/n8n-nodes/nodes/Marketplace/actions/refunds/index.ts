// The Refund resource: its one operation and its Operation choice.
import { singleOperationResource } from '../resource';
import * as create from './create';

export const { operations, description } = singleOperationResource('refunds', 'create', create, {
  name: 'Create',
  action: 'Refund an order',
  description: 'Refund an order, in full or in part',
});
