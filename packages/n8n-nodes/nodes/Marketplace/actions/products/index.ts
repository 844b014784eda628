// The Product resource: its operations (one file each, keyed by their Operation value) and its
// Operation choice.
import { resourceDescription, type OperationModule } from '../common';
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

export const description = resourceDescription('products', operations, {
  default: 'create',
  options: [
    {
      name: 'Boost',
      value: 'boost',
      action: 'Boost a product',
      description: 'Boost a product so it shows higher in search',
    },
    {
      name: 'Create',
      value: 'create',
      action: 'Create a product',
      description: 'Put a new product on sale',
    },
    {
      name: 'Delete',
      value: 'delete',
      action: 'Delete a product',
      description: 'Remove a product from the shop',
    },
    {
      name: 'Get',
      value: 'get',
      action: 'Get a product',
      description: 'Get a product by SKU, ID or URL',
    },
    {
      name: 'Get Many',
      value: 'getAll',
      action: 'Get many products',
      description: 'Get the shop’s products',
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
      description: 'Change some fields of a product on sale',
    },
    {
      name: 'Restock',
      value: 'restock',
      action: 'Restock a product',
      description: 'Set how many of a product are for sale',
    },
    {
      name: 'Unboost',
      value: 'unboost',
      action: 'Unboost a product',
      description: 'Stop boosting a product',
    },
    {
      name: 'Update',
      value: 'update',
      action: 'Update a product',
      description: 'Replace all fields of a product (by SKU it creates a new SKU)',
    },
  ],
});
