// The Marketplace Trigger's credentials and fields, for its three versions. Version 3 (the default) has
// one credential, like n8n's own triggers: the API key or OAuth2 credential, chosen in the editor's one
// credential field (its `authentication` parameter is what n8n shows as that field), which registers
// the URL and holds the signing secret. Its Registration choice is a parameter no credential depends
// on, so the editor shows it. Versions 1 and 2 keep their fields for saved workflows.
import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_WEBHOOK_TOLERANCE_SEC } from '@selling-kit/api-client/core';
import { ANY_EVENT, EVENT_OPTIONS, MIN_REPLAY_WINDOW_SEC } from './helpers';
import { OUT_OF_BAND, REGISTER_AUTOMATICALLY } from './registration';
import { AUTOMATIC, MANUAL, ONE_CREDENTIAL_VERSION, V3_REGISTRATION } from './versions';

/** The simulator's admin surface as `selling-kit dev` starts it (API port + 1): versions 1 and 2 only. */
const SIMULATOR_ADMIN = 'http://127.0.0.1:4011';

export const V1_V2 = { '@version': [1, 2] };
const V2 = { '@version': [2] };
const V3 = { '@version': [{ _cnd: { gte: ONE_CREDENTIAL_VERSION } }] };

const OUT_OF_BAND_TEXT =
  'Give this workflow\'s Production URL (under "Webhook URLs" above) to the marketplace: webhook addresses are configured on their side, not by this node. Publish the workflow so the URL answers.';

export const properties: INodeProperties[] = [
  {
    displayName: 'Authentication',
    name: 'authentication',
    type: 'options',
    noDataExpression: true,
    options: [
      { name: 'API Key (Shop)', value: 'apiKey' },
      { name: 'OAuth2 (Connected Seller)', value: 'oAuth2' },
    ],
    default: 'apiKey',
    description: 'The credential the node registers its URL with (and, from version 3, verifies with)',
    displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
  },
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
    displayOptions: { show: V2 },
  },
  {
    displayName: 'Registration',
    name: V3_REGISTRATION,
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Register Automatically',
        value: AUTOMATIC,
        description:
          'Publishing the workflow subscribes its URL with the marketplace; unpublishing removes the subscription',
      },
      {
        name: 'Registered Out of Band',
        value: MANUAL,
        description: 'You give the marketplace the Production URL yourself; the node calls no API',
      },
    ],
    default: AUTOMATIC,
    displayOptions: { show: V3 },
  },
  {
    displayName:
      'Publishing the workflow subscribes its Production URL with the marketplace for the events below, and unpublishing removes the subscription ("Listen for test event" does the same with the Test URL while it listens). Deliveries are verified with the Webhook Signing Secret of the credential above.',
    name: 'registeredNoticeV3',
    type: 'notice',
    default: '',
    displayOptions: { show: { ...V3, [V3_REGISTRATION]: [AUTOMATIC] } },
  },
  {
    displayName: `${OUT_OF_BAND_TEXT} Deliveries are verified with the Webhook Signing Secret of the credential above. To try the node without the marketplace, pin mock data on its output (n8n's "Set mock data").`,
    name: 'outOfBandNoticeV3',
    type: 'notice',
    default: '',
    displayOptions: { show: { ...V3, [V3_REGISTRATION]: [MANUAL] } },
  },
  {
    displayName: `Publishing the workflow subscribes its Production URL with the marketplace for the events below, and unpublishing removes the subscription ("Listen for test event" does the same with the Test URL while it listens). Deliveries are signed with your partner's secret: put it in the Webhook Secret credential. To try it with the local simulator (selling-kit dev): click "Listen for test event", then emit an event with POST ${SIMULATOR_ADMIN}/admin/events {"sellerId": 1001, "eventType": "v1:order.new", "data": {}} (the demo partner signs with whsec_demo_selling_kit).`,
    name: 'registeredNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: { ...V2, registration: [REGISTER_AUTOMATICALLY] } },
  },
  {
    displayName: OUT_OF_BAND_TEXT,
    name: 'registrationNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: V1_V2, hide: { registration: [REGISTER_AUTOMATICALLY] } },
  },
  {
    displayName: `To try it: click "Listen for test event", then deliver a signed event to the Test URL. With the local simulator (selling-kit dev): subscribe the URL with POST ${SIMULATOR_ADMIN}/admin/webhooks {"partnerId": "demo-partner", "url": "<Test URL>"}, then emit an event with POST ${SIMULATOR_ADMIN}/admin/events {"sellerId": 1001, "eventType": "v1:order.new", "data": {}} (the demo partner signs with whsec_demo_selling_kit). Without a simulator, pin mock data on this node's output (n8n's "Set mock data").`,
    name: 'testEventNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: V1_V2, hide: { registration: [REGISTER_AUTOMATICALLY] } },
  },
  {
    displayName: 'Events',
    name: 'events',
    type: 'multiOptions',
    required: true,
    default: [ANY_EVENT],
    description: 'The events that start the workflow; others are acknowledged (200) and ignored',
    options: EVENT_OPTIONS,
  },
  {
    displayName:
      '"Any Event" takes every event and stands alone: to choose events, remove it first (the node does not listen while both are selected)',
    name: 'anyEventNotice',
    type: 'notice',
    default: '',
    displayOptions: { show: { events: [ANY_EVENT] } },
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
];
