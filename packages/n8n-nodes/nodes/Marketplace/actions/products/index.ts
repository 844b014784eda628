// The Product resource: its operations (one file each, keyed by their Operation value) and its
// Operation choice. Version 3 follows n8n's convention: Update is the partial change and Replace (All
// Fields) the full PUT, and Patch is gone (Update covers it); versions 1 and 2 keep their choice —
// Update as the full PUT, and Patch — so saved workflows open and run as they did.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { OperationModule } from '../operation';
import { resourceDescription } from '../resource';
import * as boost from './boost';
import * as create from './create';
import * as del from './delete';
import * as get from './get';
import * as list from './list';
import * as markSold from './markSold';
import * as patch from './patch';
import * as replace from './replace';
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
  replace,
  restock,
  unboost,
  update,
};

const BEFORE_V3 = { '@version': [1, 2] };
const V3_ON = { '@version': [{ _cnd: { gte: 3 } }] };

/** The Operation choice of versions 1 and 2, as it was. */
const optionsBeforeV3: INodePropertyOptions[] = [
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
];

/** Version 3's: Patch folded into Update (partial), the full PUT as Replace (All Fields). */
const optionsV3: INodePropertyOptions[] = [
  ...optionsBeforeV3.filter((o) => !['patch', 'update'].includes(String(o.value))),
  {
    name: 'Replace (All Fields)',
    value: 'replace',
    action: 'Replace all fields of a product',
    description:
      'Write every field of a product; fields left empty are cleared (by SKU a new SKU is created)',
  },
  {
    name: 'Update',
    value: 'update',
    action: 'Update a product',
    description: 'Change only the fields you choose',
  },
].sort((a, b) => a.name.localeCompare(b.name));

const [operationBeforeV3, ...fields] = resourceDescription('products', operations, {
  default: 'create',
  options: optionsBeforeV3,
});

const onVersions = (field: INodeProperties, versions: object): INodeProperties => ({
  ...field,
  displayOptions: { ...field.displayOptions, show: { ...field.displayOptions?.show, ...versions } },
});

export const description: INodeProperties[] = [
  onVersions(operationBeforeV3!, BEFORE_V3),
  onVersions({ ...operationBeforeV3!, options: optionsV3 }, V3_ON),
  ...fields,
];
