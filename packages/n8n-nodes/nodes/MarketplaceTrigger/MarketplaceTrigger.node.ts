import type {
  ICredentialsDecrypted,
  ICredentialTestFunctions,
  IDataObject,
  IHookFunctions,
  INodeCredentialTestResult,
  INodeType,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import {
  DEFAULT_WEBHOOK_TOLERANCE_SEC,
  WebhookPayloadError,
  WebhookVerificationError,
  parseWebhookEvent,
  verifyWebhook,
  webhookHeaders,
} from '@selling-kit/api-client/core';

import { V1_V2, properties } from './description';
import { EVENT_OPTIONS, eventMatches, eventsProblem, readRawBody, replayWindowProblem } from './helpers';
import {
  OUT_OF_BAND,
  createSubscription,
  deleteSubscription,
  registersItself,
  subscriptionExists,
} from './registration';
import { requireSigningSecret, signingSecret } from './versions';

/**
 * Starts a workflow on the marketplace's signed webhook deliveries (sales, refunds, product changes,
 * likes and unlikes). Each delivery is verified on its raw bytes with the partner's signing secret and
 * a replay window before anything runs; forgeries get 401 and start nothing.
 *
 * Version 3 (the default) has one credential, like n8n's own triggers: the API key or OAuth2
 * credential both registers the URL and holds the signing secret (description.ts, versions.ts).
 * Registration (versions 2 and 3, "Register Automatically"): the node subscribes its URL through the
 * marketplace's webhook configuration endpoints when the workflow is published (and its Test URL while
 * listening for a test event) and removes it when unpublished (registration.ts). "Registered Out of
 * Band", and version 1: the partner gives the marketplace the Production URL, nothing remote is created
 * or deleted. Versions 1 and 2 read the secret from the separate Webhook Secret credential. In every
 * mode the lifecycle methods refuse a selection of events that cannot mean anything ("Any Event" next
 * to other events), and version 3 a credential without a secret, when n8n starts listening.
 */
export class MarketplaceTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace Trigger',
    name: 'marketplaceTrigger',
    icon: { light: 'file:marketplace.svg', dark: 'file:marketplace.dark.svg' },
    group: ['trigger'],
    version: [1, 2, 3],
    defaultVersion: 3,
    // The events as the Events field names them ("New Order"), not their wire names.
    subtitle: `={{ ($parameter["events"] || []).map((e) => (${JSON.stringify(
      Object.fromEntries(EVENT_OPTIONS.map((o) => [o.value, o.name])),
    )})[e] || e).join(", ") }}`,
    // n8n's node panel shows one entry for the action node and this trigger, with this text (both
    // under "What triggers this workflow?" and "What happens next?"): it speaks for both.
    description:
      'Marketplace shop: react to sales, refunds, likes and product changes; manage products, offers and orders',
    defaults: { name: 'Marketplace Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      // Versions 1 and 2: the separate signing secret (n8n's lint wants its testedBy in the node file).
      {
        name: 'marketplaceWebhookApi',
        required: true,
        testedBy: 'marketplaceWebhookSecretTest',
        displayOptions: { show: V1_V2 },
      },
      // Version 3: the one credential. Version 2, "Register Automatically": the one that registers (its
      // `registration` is absent in version 3, and version 1 has no `authentication`).
      {
        name: 'marketplaceApi',
        required: true,
        displayOptions: { show: { authentication: ['apiKey'] }, hide: { registration: [OUT_OF_BAND] } },
      },
      {
        name: 'marketplaceOAuth2Api',
        required: true,
        displayOptions: { show: { authentication: ['oAuth2'] }, hide: { registration: [OUT_OF_BAND] } },
      },
    ],
    webhooks: [
      {
        name: 'default',
        httpMethod: 'POST',
        responseMode: 'onReceived',
        path: 'webhook',
      },
    ],
    properties,
  };

  methods = {
    credentialTest: {
      /** Local check: the secret is usable for signing (nothing is sent to the marketplace). */
      async marketplaceWebhookSecretTest(
        this: ICredentialTestFunctions,
        credential: ICredentialsDecrypted,
      ): Promise<INodeCredentialTestResult> {
        const secret = String(credential.data?.signingSecret ?? '');
        if (secret.trim().length < 8) {
          return { status: 'Error', message: 'The signing secret is empty or too short' };
        }
        if (secret !== secret.trim()) {
          return {
            status: 'Error',
            message: 'The signing secret starts or ends with spaces; paste it exactly',
          };
        }
        const body = '{"id":"credential-test","event_type":"v1:credential.test","created_at":"","data":{}}';
        try {
          verifyWebhook(body, webhookHeaders(body, secret), secret);
        } catch (error) {
          return {
            status: 'Error',
            message: `The signing secret cannot be used: ${(error as Error).message}`,
          };
        }
        return { status: 'OK', message: 'The signing secret is usable' };
      },
    },
  };

  webhookMethods = {
    default: {
      // Listening (test or production) starts here, so an unusable selection of events (or Replay
      // Window) is refused here, in every mode. Out of band (and version 1) nothing remote exists to check or create.
      async checkExists(this: IHookFunctions): Promise<boolean> {
        checkEvents(this);
        await requireSigningSecret(this);
        if (!registersItself(this)) return true;
        return await subscriptionExists(this);
      },
      async create(this: IHookFunctions): Promise<boolean> {
        checkEvents(this);
        await requireSigningSecret(this);
        if (!registersItself(this)) return true;
        return await createSubscription(this);
      },
      async delete(this: IHookFunctions): Promise<boolean> {
        if (!registersItself(this)) return true;
        return await deleteSubscription(this);
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const req = this.getRequestObject();
    const res = this.getResponseObject();
    const refuse = (status: number, message: string): IWebhookResponseData => {
      res.status(status).json({ message }).end();
      return { noWebhookResponse: true };
    };

    const secret = await signingSecret(this);
    const options = this.getNodeParameter('options', {}) as IDataObject;
    // A window below the minimum (a workflow saved before it, or edited outside the editor): no
    // delivery is accepted until it is fixed, rather than accepting replays.
    const windowProblem = replayWindowProblem(options.replayWindowSec);
    if (windowProblem) throw new NodeOperationError(this.getNode(), windowProblem);
    const toleranceSec = Number(options.replayWindowSec ?? DEFAULT_WEBHOOK_TOLERANCE_SEC);

    const rawBody = await readRawBody(req);
    // No secret (a version-3 credential without one; activation refuses it too): nothing verifies.
    if (rawBody === undefined || !secret.trim()) return refuse(401, 'Unauthorized');
    try {
      verifyWebhook(rawBody, req.headers, secret, { toleranceSec });
    } catch (error) {
      if (error instanceof WebhookVerificationError) {
        // One answer for every failure: a forger learns nothing about which check failed.
        return refuse(401, 'Unauthorized');
      }
      throw new NodeOperationError(this.getNode(), error as Error);
    }

    let event: IDataObject;
    try {
      event = parseWebhookEvent(rawBody) as unknown as IDataObject;
    } catch (error) {
      if (!(error instanceof WebhookPayloadError))
        throw new NodeOperationError(this.getNode(), error as Error);
      const schemaMismatch = error.issues.length > 0;
      if (!schemaMismatch || options.strictPayload === true) return refuse(400, error.message);
      event = JSON.parse(
        typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody),
      ) as IDataObject;
    }

    // "Any Event" next to other events (a workflow that never went through activation): it wins.
    const events = this.getNodeParameter('events', []) as string[];
    if (!eventMatches(events, String(event.event_type))) {
      return { webhookResponse: { received: true, ignored: true } };
    }
    return { workflowData: [this.helpers.returnJsonArray([event])] };
  }
}

/**
 * Refuses "Any Event" next to other events, naming the field (the node would not mean what it shows),
 * and a Replay Window below the minimum (replay protection off or nearly).
 */
function checkEvents(ctx: IHookFunctions): void {
  const options = ctx.getNodeParameter('options', {}) as IDataObject;
  const problem =
    eventsProblem(ctx.getNodeParameter('events', []) as string[]) ??
    replayWindowProblem(options.replayWindowSec);
  if (problem) throw new NodeOperationError(ctx.getNode(), problem);
}
