import type { INodeProperties } from 'n8n-workflow';
import { forOperation, type OperationModule } from '../common';
import * as boost from './boost';
import * as create from './create';
import * as del from './delete';
import * as get from './get';
import * as list from './list';
import * as markSold from './markSold';
import * as patch from './patch';
import * as restock from './restock';
import * as unboost from './unboost';
import * as update from './update';

export const operations: Record<string, OperationModule> = {
  boost,
  create,
  delete: del,
  get,
  getAll: list,
  markSold,
  patch,
  restock,
  unboost,
  update,
};

export const description: INodeProperties[] = [
  {
    displayName: 'Operation',
    name: 'operation',
    type: 'options',
    noDataExpression: true,
    displayOptions: { show: { resource: ['products'] } },
    options: [
      { name: 'Boost', value: 'boost', action: 'Boost a product', description: 'Boost a listing' },
      { name: 'Create', value: 'create', action: 'Create a product', description: 'Create a listing' },
      { name: 'Delete', value: 'delete', action: 'Delete a product', description: 'Delete a listing' },
      {
        name: 'Get',
        value: 'get',
        action: 'Get a product',
        description: 'Get a listing by SKU, product ID or slug',
      },
      {
        name: 'Get Many',
        value: 'getAll',
        action: 'Get many products',
        description: 'List the shop’s listings',
      },
      {
        name: 'Mark as Sold',
        value: 'markSold',
        action: 'Mark a product as sold',
        description: 'Record a sale made elsewhere',
      },
      {
        name: 'Patch',
        value: 'patch',
        action: 'Patch a product',
        description: 'Change some fields of an on-sale listing',
      },
      {
        name: 'Restock',
        value: 'restock',
        action: 'Restock a product',
        description: 'Set the quantity of a listing',
      },
      {
        name: 'Unboost',
        value: 'unboost',
        action: 'Unboost a product',
        description: 'Stop boosting a listing',
      },
      {
        name: 'Update',
        value: 'update',
        action: 'Update a product',
        description: 'Replace a listing (full update; by SKU it creates new SKUs)',
      },
    ],
    default: 'create',
  },
  ...Object.entries(operations).flatMap(([name, op]) => forOperation('products', name, op.description)),
];
