// The Marketplace action node: every resource and operation of the Selling API. Version 2 picks
// products with a resource locator, returns full records and offers dynamic options; version 3 (the
// default) makes Update the partial change (Replace (All Fields) the full PUT) and lists Product Type
// and Brand from the catalogue. Earlier versions' parameters stay for saved workflows.
import type {
  IExecuteFunctions,
  INodeExecutionData,
  INodeProperties,
  INodePropertyOptions,
  INodeType,
  INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { labelledOptions } from './actions/options';
import { resources, router } from './actions/router';
import { listSearch, loadOptions } from './methods';

const RESOURCE_OPTIONS: INodePropertyOptions[] = [
  { name: 'Insight', value: 'insights' },
  { name: 'Offer', value: 'offers' },
  { name: 'Order', value: 'orders' },
  { name: 'Pricing', value: 'pricing' },
  { name: 'Product', value: 'products' },
  { name: 'Refund', value: 'refunds' },
  { name: 'Shipping', value: 'shipping' },
  { name: 'Shop', value: 'shop' },
];

/** Each resource's Operation choice and its operations' fields, in the router's order of resources. */
const OPERATION_FIELDS: INodeProperties[] = Object.values(resources).flatMap((r) => r.description);

/**
 * The canvas subtitle, "Mark as Sold: Product": the operation's and the resource's display names,
 * looked up from the tables below (n8n evaluates the expression with the node's parameters).
 */
function subtitleExpression(): string {
  const resourceNames = Object.fromEntries(RESOURCE_OPTIONS.map((o) => [o.value, o.name]));
  const operations: Record<string, string> = {};
  for (const field of OPERATION_FIELDS.filter((f) => f.name === 'operation'))
    for (const resource of (field.displayOptions?.show?.resource ?? []) as string[])
      for (const option of (field.options ?? []) as INodePropertyOptions[])
        operations[`${resource}:${String(option.value)}`] = option.name;
  return (
    `={{ (${JSON.stringify(operations)})[$parameter["resource"] + ":" + $parameter["operation"]]` +
    ` + ": " + (${JSON.stringify(resourceNames)})[$parameter["resource"]] }}`
  );
}

/** Every resource and operation of the Selling API, on the shared client core. */
export class Marketplace implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace',
    name: 'marketplace',
    icon: { light: 'file:marketplace.svg', dark: 'file:marketplace.dark.svg' },
    group: ['transform'],
    // No `defaultVersion`: the editor then gives new nodes the last version (3), and n8n adds its
    // "Custom API Call" to the Resource and Operation lists only for a node whose default version is
    // its latest — which it tells by `defaultVersion` being absent or equal to `version` (never true
    // of a list). The credentials authenticate generically, so n8n's HTTP Request node can use them.
    version: [1, 2, 3],
    subtitle: subtitleExpression(),
    description: 'Manage products, offers, orders, refunds and shipping of a marketplace shop',
    defaults: { name: 'Marketplace' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      { name: 'marketplaceApi', required: true, displayOptions: { show: { authentication: ['apiKey'] } } },
      {
        name: 'marketplaceOAuth2Api',
        required: true,
        displayOptions: { show: { authentication: ['oAuth2'] } },
      },
    ],
    properties: [
      {
        displayName: 'Authentication',
        name: 'authentication',
        type: 'options',
        options: labelledOptions({ apiKey: 'API Key (Shop)', oAuth2: 'OAuth2 (Connected Seller)' }),
        default: 'apiKey',
      },
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: RESOURCE_OPTIONS,
        default: 'products',
      },
      ...OPERATION_FIELDS,
    ],
  };

  methods = { listSearch, loadOptions };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return router.call(this);
  }
}
