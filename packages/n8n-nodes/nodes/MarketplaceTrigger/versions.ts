// What differs between the trigger's versions: where the signing secret lives and which parameter
// chooses the registration. Versions 1 and 2 keep a separate Webhook Secret credential (and version 2 a
// `registration` parameter that the credentials depend on — which n8n's editor hides, so version 2 could
// only ever register automatically). Version 3 has one credential, the API key or OAuth2 one, holding the
// secret (its Webhook Signing Secret field); its own registration parameter, `webhookRegistration`, is one
// no credential depends on, so the editor shows it.
import { NodeOperationError, type IHookFunctions, type IWebhookFunctions } from 'n8n-workflow';
import { credentialTypeOf } from '../Marketplace/transport';
import { WEBHOOK_SECRET_FIELD } from '../../credentials/webhookSecret';

/** The version with one credential. */
export const ONE_CREDENTIAL_VERSION = 3;

/** Version 3's registration parameter, and its values. */
export const V3_REGISTRATION = 'webhookRegistration';
export const AUTOMATIC = 'automatic';
export const MANUAL = 'outOfBand';

/** The separate secret credential of versions 1 and 2. */
export const SECRET_CREDENTIAL = 'marketplaceWebhookApi';

type Ctx = IHookFunctions | IWebhookFunctions;

const versionOf = (ctx: Ctx) => ctx.getNode().typeVersion ?? 1;

/** The credential type that holds the signing secret, and the field it is in. */
function secretSource(ctx: Ctx): { type: string; field: string } {
  if (versionOf(ctx) < ONE_CREDENTIAL_VERSION) return { type: SECRET_CREDENTIAL, field: 'signingSecret' };
  const authentication = (ctx.getNodeParameter as (name: string, fallback: unknown) => unknown)(
    'authentication',
    'apiKey',
  );
  return { type: credentialTypeOf(authentication), field: WEBHOOK_SECRET_FIELD };
}

/** The signing secret ('' when the credential has none). */
export async function signingSecret(ctx: Ctx): Promise<string> {
  const { type, field } = secretSource(ctx);
  const credentials = await ctx.getCredentials(type);
  return String(credentials[field] ?? '');
}

/**
 * Refuses to listen when the credential holds no signing secret (version 3, where the field is
 * optional because the action node shares the credential): every delivery would be refused, silently.
 */
export async function requireSigningSecret(ctx: IHookFunctions): Promise<void> {
  if (versionOf(ctx) < ONE_CREDENTIAL_VERSION) return;
  if ((await signingSecret(ctx)).trim()) return;
  const { type } = secretSource(ctx);
  const name = ctx.getNode().credentials?.[type]?.name;
  throw new NodeOperationError(
    ctx.getNode(),
    `The credential${name ? ` "${name}"` : ''} has no Webhook Signing Secret`,
    {
      description:
        'Open the credential and paste the webhook signing secret the marketplace gave you with your partner access: without it no delivery can be verified, so none would start the workflow.',
    },
  );
}
