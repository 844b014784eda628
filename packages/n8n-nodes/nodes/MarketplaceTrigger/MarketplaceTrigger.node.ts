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

import { EVENT_OPTIONS, eventMatches, readRawBody } from './helpers';

/**
 * Starts a workflow on the marketplace's signed webhook deliveries (sales, refunds, product changes,
 * likes and unlikes). Each delivery is verified on its raw bytes with the partner's signing secret and
 * a replay window before anything runs; forgeries get 401 and start nothing.
 *
 * Registration is out of band: the marketplace has no webhook-configuration API, the partner sends it
 * the node's Production URL (shown under "Webhook URLs"). So the lifecycle methods below have nothing
 * remote to create or delete.
 */
export class MarketplaceTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Marketplace Trigger',
    name: 'marketplaceTrigger',
    icon: { light: 'file:marketplace.svg', dark: 'file:marketplace.dark.svg' },
    group: ['trigger'],
    version: 1,
    subtitle: '={{($parameter["events"] || []).join(", ")}}',
    description:
      'Starts the workflow on signed marketplace webhooks (sales, refunds, product changes, likes)',
    defaults: { name: 'Marketplace Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      { name: 'marketplaceWebhookApi', required: true, testedBy: 'marketplaceWebhookSecretTest' },
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
        displayName:
          'Give this workflow\'s Production URL (under "Webhook URLs" above) to the marketplace: webhook addresses are configured on their side, not by this node. Publish the workflow so the URL answers.',
        name: 'registrationNotice',
        type: 'notice',
        default: '',
      },
      {
        displayName: 'Events',
        name: 'events',
        type: 'multiOptions',
        required: true,
        default: ['*'],
        description: 'The events that start the workflow; others are acknowledged (200) and ignored',
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
            typeOptions: { minValue: 0 },
            default: DEFAULT_WEBHOOK_TOLERANCE_SEC,
            description:
              'Refuse deliveries whose X-Depop-Timestamp is further than this from now (replay protection). 0 turns the check off (not recommended).',
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
      // Nothing is registered remotely: the URL is given to the marketplace out of band.
      async checkExists(this: IHookFunctions): Promise<boolean> {
        return true;
      },
      async create(this: IHookFunctions): Promise<boolean> {
        return true;
      },
      async delete(this: IHookFunctions): Promise<boolean> {
        return true;
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
    const toleranceSec = Number(options.replayWindowSec ?? DEFAULT_WEBHOOK_TOLERANCE_SEC);

    const rawBody = await readRawBody(req);
    if (rawBody === undefined) return refuse(401, 'Unauthorized');
    try {
      verifyWebhook(rawBody, req.headers, secret, {
        toleranceSec:
          Number.isFinite(toleranceSec) && toleranceSec >= 0 ? toleranceSec : DEFAULT_WEBHOOK_TOLERANCE_SEC,
      });
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

    const events = this.getNodeParameter('events', []) as string[];
    if (!eventMatches(events, String(event.event_type))) {
      return { webhookResponse: { received: true, ignored: true } };
    }
    return { workflowData: [this.helpers.returnJsonArray([event])] };
  }
}
