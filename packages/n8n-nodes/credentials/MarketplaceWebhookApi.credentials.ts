import type { ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * The partner's webhook signing secret. The marketplace signs every delivery with it
 * (`X-Depop-Signature` = hex HMAC-SHA256 of `<X-Depop-Timestamp>.<raw body>`); the Marketplace
 * Trigger node verifies that signature. It is distinct from the API key and never sent anywhere:
 * the node's credential test (`testedBy` on the trigger) checks it locally.
 */
export class MarketplaceWebhookApi implements ICredentialType {
  name = 'marketplaceWebhookApi';

  displayName = 'Marketplace Webhook Signing Secret API';

  icon = 'file:../nodes/MarketplaceTrigger/marketplace.svg' as const;

  documentationUrl = 'https://partnerapi.depop.com/api-docs/how-to-guides/validate-webhooks/';

  properties: INodeProperties[] = [
    {
      displayName: 'Signing Secret',
      name: 'signingSecret',
      type: 'string',
      typeOptions: { password: true },
      required: true,
      default: '',
      description:
        'The webhook signing secret the marketplace gave you (distinct from the API key). Every delivery is checked against it.',
    },
  ];
}
