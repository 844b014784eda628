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

import {
  ANY_EVENT,
  EVENT_OPTIONS,
  MIN_REPLAY_WINDOW_SEC,
  eventMatches,
  eventsProblem,
  readRawBody,
  replayWindowProblem,
} from './helpers';
import {
  OUT_OF_BAND,
  REGISTER_AUTOMATICALLY,
  createSubscription,
  deleteSubscription,
  registersItself,
  subscriptionExists,
} from './registration';

/** The simulator's admin surface as `selling-kit dev` starts it (API port + 1), and its demo partner. */
const SIMULATOR_ADMIN = 'http://127.0.0.1:4011';

/**
 * Starts a workflow on the marketplace's signed webhook deliveries (sales, refunds, product changes,
 * likes and unlikes). Each delivery is verified on its raw bytes with the partner's signing secret and
 * a replay window before anything runs; forgeries get 401 and start nothing.
 *
 * Registration. Version 2 (the default) subscribes its URL through the marketplace's webhook
 * configuration endpoints when the workflow is published (and its Test URL while listening for a test
 * event) and removes it when unpublished: registration.ts, with an API key or OAuth2 credential. The
 * subscription is signed with the partner's secret, which the Webhook Secret credential holds (the
 * API's subscriptions carry no secret of their own). "Registered Out of Band", and version 1, keep the
 * first behaviour: the partner gives the marketplace the Production URL, nothing remote is created or
 * deleted. In every mode the lifecycle methods refuse a selection of events that cannot mean anything
 * ("Any Event" next to other events) when n8n starts listening.
 */
export class MarketplaceTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace Trigger',
    name: 'marketplaceTrigger',
    icon: { light: 'file:marketplace.svg', dark: 'file:marketplace.dark.svg' },
    group: ['trigger'],
    version: [1, 2],
    defaultVersion: 2,
    subtitle: '={{($parameter["events"] || []).join(", ")}}',
    description:
      'Starts the workflow on signed marketplace webhooks (sales, refunds, product changes, likes)',
    defaults: { name: 'Marketplace Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      { name: 'marketplaceWebhookApi', required: true, testedBy: 'marketplaceWebhookSecretTest' },
      // Version 2, "Register Automatically": the credential that calls the webhook configuration API.
      {
        name: 'marketplaceApi',
        required: true,
        displayOptions: { show: { registration: [REGISTER_AUTOMATICALLY], authentication: ['apiKey'] } },
      },
      {
        name: 'marketplaceOAuth2Api',
        required: true,
        displayOptions: { show: { registration: [REGISTER_AUTOMATICALLY], authentication: ['oAuth2'] } },
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
    properties: [
      {
        displayName: 'Registration',
        name: 'registration',
        type: 'options',
        noDataExpression: true,
        options: [
          {
            name: 'Register Automatically',
            value: REGISTER_AUTOMATICALLY,
            description:
              "The node subscribes this workflow's URL through the marketplace's webhook API when the workflow is published, and removes it when unpublished",
          },
          {
            name: 'Registered Out of Band',
            value: OUT_OF_BAND,
            description: 'You give the marketplace the Production URL yourself; the node calls no API',
          },
        ],
        default: REGISTER_AUTOMATICALLY,
        displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
      },
      {
        displayName: 'Authentication',
        name: 'authentication',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'API Key', value: 'apiKey' },
          { name: 'OAuth2', value: 'oAuth2' },
        ],
        default: 'apiKey',
        description: 'The credential the node registers its URL with',
        displayOptions: {
          show: { '@version': [{ _cnd: { gte: 2 } }], registration: [REGISTER_AUTOMATICALLY] },
        },
      },
      {
        displayName: `Publishing the workflow subscribes its Production URL with the marketplace for the events below, and unpublishing removes the subscription ("Listen for test event" does the same with the Test URL while it listens). Deliveries are signed with your partner's secret: put it in the Webhook Secret credential. To try it with the local simulator (selling-kit dev): click "Listen for test event", then emit an event with POST ${SIMULATOR_ADMIN}/admin/events {"sellerId": 1001, "eventType": "v1:order.new", "data": {}} (the demo partner signs with whsec_demo_selling_kit).`,
        name: 'registeredNotice',
        type: 'notice',
        default: '',
        displayOptions: {
          show: { '@version': [{ _cnd: { gte: 2 } }], registration: [REGISTER_AUTOMATICALLY] },
        },
      },
      {
        displayName:
          'Give this workflow\'s Production URL (under "Webhook URLs" above) to the marketplace: webhook addresses are configured on their side, not by this node. Publish the workflow so the URL answers.',
        name: 'registrationNotice',
        type: 'notice',
        default: '',
        displayOptions: { hide: { registration: [REGISTER_AUTOMATICALLY] } },
      },
      {
        displayName: `To try it: click "Listen for test event", then deliver a signed event to the Test URL. With the local simulator (selling-kit dev): subscribe the URL with POST ${SIMULATOR_ADMIN}/admin/webhooks {"partnerId": "demo-partner", "url": "<Test URL>"}, then emit an event with POST ${SIMULATOR_ADMIN}/admin/events {"sellerId": 1001, "eventType": "v1:order.new", "data": {}} (the demo partner signs with whsec_demo_selling_kit). Without a simulator, pin mock data on this node's output (n8n's "Set mock data").`,
        name: 'testEventNotice',
        type: 'notice',
        default: '',
        displayOptions: { hide: { registration: [REGISTER_AUTOMATICALLY] } },
      },
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        required: true,
        default: [ANY_EVENT],
        description: 'The events that start the workflow; others are acknowledged (200) and ignored',
        hint: '"Any Event" takes every event and stands alone: to choose events, remove it first (the node does not listen while both are selected)',
        options: EVENT_OPTIONS,
      },
      {
        displayName: 'Options',
        name: 'options',
        type: 'collection',
        placeholder: 'Add option',
        default: {},
        options: [
          {
            displayName: 'Replay Window (Seconds)',
            name: 'replayWindowSec',
            type: 'number',
            typeOptions: { minValue: MIN_REPLAY_WINDOW_SEC },
            default: DEFAULT_WEBHOOK_TOLERANCE_SEC,
            description: `Refuse deliveries whose X-Depop-Timestamp is further than this from now (replay protection). At least ${MIN_REPLAY_WINDOW_SEC}: the node does not listen with less.`,
          },
          {
            displayName: 'Strict Payload Check',
            name: 'strictPayload',
            type: 'boolean',
            default: false,
            description:
              'Whether to refuse (400) a correctly signed delivery of a known event type whose fields do not match the documented payload. Off: such events are passed on as received.',
          },
        ],
      },
    ],
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
        if (!registersItself(this)) return true;
        return await subscriptionExists(this);
      },
      async create(this: IHookFunctions): Promise<boolean> {
        checkEvents(this);
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

    const credentials = await this.getCredentials('marketplaceWebhookApi');
    const secret = String(credentials.signingSecret ?? '');
    const options = this.getNodeParameter('options', {}) as IDataObject;
    // A window below the minimum (a workflow saved before it, or edited outside the editor): no
    // delivery is accepted until it is fixed, rather than accepting replays.
    const windowProblem = replayWindowProblem(options.replayWindowSec);
    if (windowProblem) throw new NodeOperationError(this.getNode(), windowProblem);
    const toleranceSec = Number(options.replayWindowSec ?? DEFAULT_WEBHOOK_TOLERANCE_SEC);

    const rawBody = await readRawBody(req);
    if (rawBody === undefined) return refuse(401, 'Unauthorized');
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
