// The webhook signing secret as a field of the API-key and OAuth2 credentials, so the Marketplace
// Trigger (version 3) needs one credential, like n8n's own triggers: the same credential registers the
// webhook URL and verifies the deliveries. Optional: the action node never uses it.
import type { INodeProperties } from 'n8n-workflow';
import { secretField } from './secretField';

/** The field's name in both credentials (what the trigger reads). */
export const WEBHOOK_SECRET_FIELD = 'webhookSigningSecret';

export const webhookSecretProperty: INodeProperties = secretField({
  displayName: 'Webhook Signing Secret',
  name: WEBHOOK_SECRET_FIELD,
  description:
    "Only for the Marketplace Trigger: the secret the marketplace signs webhook deliveries with, given with your partner access (distinct from the API key). Every delivery is checked against it. The local simulator's demo partner signs with whsec_demo_selling_kit.",
});
