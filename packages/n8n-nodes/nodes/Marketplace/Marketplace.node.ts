import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import * as insights from './actions/insights';
import * as offers from './actions/offers';
import * as orders from './actions/orders';
import * as pricing from './actions/pricing';
import * as products from './actions/products';
import * as refunds from './actions/refunds';
import * as shipping from './actions/shipping';
import * as shop from './actions/shop';
import { router } from './actions/router';

/** Every resource and operation of the Selling API, on the shared client core. */
export class Marketplace implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace',
    name: 'marketplace',
    icon: { light: 'file:marketplace.svg', dark: 'file:marketplace.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
    description: 'Manage listings, offers, orders, refunds and shipping of a marketplace shop',
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
        options: [
          { name: 'API Key (Shop)', value: 'apiKey' },
          { name: 'OAuth2 (Connected Seller)', value: 'oAuth2' },
        ],
        default: 'apiKey',
      },
      {
        displayName: 'Resource',
        name: 'resource',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Insight', value: 'insights' },
          { name: 'Offer', value: 'offers' },
          { name: 'Order', value: 'orders' },
          { name: 'Pricing', value: 'pricing' },
          { name: 'Product', value: 'products' },
          { name: 'Refund', value: 'refunds' },
          { name: 'Shipping', value: 'shipping' },
          { name: 'Shop', value: 'shop' },
        ],
        default: 'products',
      },
      ...products.description,
      ...offers.description,
      ...orders.description,
      ...refunds.description,
      ...shipping.description,
      ...shop.description,
      ...insights.description,
      ...pricing.description,
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return router.call(this);
  }
}
