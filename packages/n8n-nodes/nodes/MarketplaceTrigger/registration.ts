// The trigger's webhook subscription on the marketplace (node versions 2 and 3, "Register Automatically"):
// n8n's webhookMethods — checkExists, create, delete — over the webhook configuration endpoints
// (GET/POST /api/v1/webhooks/, DELETE /api/v1/webhooks/{id}/; README Spec gaps #3), like n8n's GitHub
// trigger. The subscription id is kept in the node's static data, which n8n saves with the workflow,
// so it survives n8n restarts; checkExists asks the marketplace anyway, so a subscription deleted on
// its side is created again. Version 1, and "Registered Out of Band", call nothing.
import {
  NodeApiError,
  NodeOperationError,
  type IDataObject,
  type IHookFunctions,
  type JsonObject,
} from 'n8n-workflow';
import {
  LocalValidationError,
  SellingApiError,
  WEBHOOK_EVENT_TYPES,
  type SellingClient,
  type WebhookSubscription,
  type WebhookSubscriptionRequest,
} from '@selling-kit/api-client/client';

import { createHookClient, credentialTypeOf, type CredentialType } from '../Marketplace/transport';
import { ANY_EVENT } from './helpers';
import { AUTOMATIC, ONE_CREDENTIAL_VERSION, V3_REGISTRATION } from './versions';

export const REGISTER_AUTOMATICALLY = 'api';
export const OUT_OF_BAND = 'outOfBand';

/** What static data keeps per webhook URL (the Test URL and the Production URL are subscribed apart). */
interface StoredSubscription {
  id: string;
  events: string[];
}
type Subscriptions = Record<string, StoredSubscription>;

/** Whether this node subscribes its URL itself (version 2 or 3 with "Register Automatically"). */
export function registersItself(ctx: IHookFunctions): boolean {
  const version = ctx.getNode().typeVersion ?? 1;
  if (version < 2) return false;
  if (version >= ONE_CREDENTIAL_VERSION)
    return ctx.getNodeParameter(V3_REGISTRATION, AUTOMATIC) === AUTOMATIC;
  return ctx.getNodeParameter('registration', REGISTER_AUTOMATICALLY) === REGISTER_AUTOMATICALLY;
}

function credentialType(ctx: IHookFunctions): CredentialType {
  return credentialTypeOf(ctx.getNodeParameter('authentication', 'apiKey'));
}

/** The URL n8n listens on right now: the Test URL while listening for a test event, else the Production URL. */
function listeningUrl(ctx: IHookFunctions): string {
  const url = ctx.getNodeWebhookUrl('default');
  if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n gave this trigger no webhook URL to register');
  return url;
}

/** The event types to subscribe: undefined = every type (the API's default, "Any Event"). */
function wantedEvents(ctx: IHookFunctions): string[] | undefined {
  const selected = ctx.getNodeParameter('events', []) as string[];
  if (selected.length === 0 || selected.includes(ANY_EVENT)) return undefined;
  return [...new Set(selected)].sort();
}

function sameEvents(subscription: WebhookSubscription, wanted: string[] | undefined): boolean {
  const have = new Set(subscription.event_types);
  if (wanted === undefined) return WEBHOOK_EVENT_TYPES.every((type) => have.has(type));
  return have.size === wanted.length && wanted.every((type) => have.has(type));
}

function stored(ctx: IHookFunctions): Subscriptions {
  const data = ctx.getWorkflowStaticData('node');
  return { ...((data.subscriptions as Subscriptions | undefined) ?? {}) };
}

/** Writes the map back as a whole: n8n notices top-level changes of node static data and saves them. */
function store(ctx: IHookFunctions, url: string, subscription: StoredSubscription | undefined): void {
  const data = ctx.getWorkflowStaticData('node');
  const next = stored(ctx);
  if (subscription) next[url] = subscription;
  else delete next[url];
  if (Object.keys(next).length === 0) delete data.subscriptions;
  else data.subscriptions = next as unknown as IDataObject;
}

async function environmentOf(ctx: IHookFunctions): Promise<string> {
  const credentials = await ctx.getCredentials(credentialType(ctx));
  return String(credentials.environment ?? 'production');
}

const isPublicEnvironment = (environment: string) =>
  environment === 'production' || environment === 'staging';

/** Why the marketplace cannot use this URL, said before anything is sent; or undefined. */
function urlProblem(url: string, environment: string): string | undefined {
  if (!isPublicEnvironment(environment) || new URL(url).protocol === 'https:') return undefined;
  return `Registration: the webhook URL ${url} is not https. On ${environment} the marketplace sends signed events over the internet, so the node subscribes only https URLs: set n8n's WEBHOOK_URL to its public https address, or choose "Registered Out of Band".`;
}

/** An API refusal as an n8n error: what was asked, the service's words, its code and error id. */
function refusal(ctx: IHookFunctions, error: unknown, what: string, url: string): Error {
  if (error instanceof SellingApiError) {
    const hint =
      new URL(url).protocol === 'https:'
        ? ''
        : ' (the URL is not https: a public marketplace needs an https URL)';
    const failure = new NodeApiError(
      ctx.getNode(),
      { code: error.code, errorId: error.errorId ?? null, status: error.status ?? null } as JsonObject,
      {
        httpCode: error.status ? String(error.status) : undefined,
        message: `The marketplace refused to ${what} ${url}: ${error.message}${hint}`,
        description: [
          `Code ${error.code}${error.status ? `, HTTP ${error.status}` : ''}`,
          error.errorId ? `Error id ${error.errorId} (quote it to the marketplace)` : undefined,
        ]
          .filter(Boolean)
          .join('. '),
      },
    );
    Object.assign(failure.context, { code: error.code, errorId: error.errorId ?? null });
    return failure;
  }
  if (error instanceof LocalValidationError) {
    const first = error.violations[0];
    return new NodeOperationError(
      ctx.getNode(),
      `Cannot ${what} ${url}: ${first ? `${first.field}: ${first.message}` : error.message}`,
    );
  }
  return new NodeOperationError(ctx.getNode(), error as Error);
}

async function subscriptions(
  ctx: IHookFunctions,
  client: SellingClient,
  url: string,
): Promise<WebhookSubscription[]> {
  try {
    return await client.webhooks.list();
  } catch (error) {
    throw refusal(ctx, error, 'list the webhook subscriptions while checking', url);
  }
}

/**
 * True when the marketplace holds a subscription of this URL for the selected events (adopted into
 * static data if it was not there, e.g. subscribed before); otherwise false, after removing a
 * subscription of this URL whose events differ, so that create() subscribes afresh.
 */
export async function subscriptionExists(ctx: IHookFunctions): Promise<boolean> {
  const url = listeningUrl(ctx);
  const client = await createHookClient(ctx, credentialType(ctx));
  const known = stored(ctx)[url];
  const list = await subscriptions(ctx, client, url);
  const found = list.find((s) => s.id === known?.id) ?? list.find((s) => s.url === url);
  if (!found || found.url !== url) {
    store(ctx, url, undefined);
    return false;
  }
  const wanted = wantedEvents(ctx);
  if (!sameEvents(found, wanted)) {
    await removeSubscription(ctx, client, found.id, url);
    store(ctx, url, undefined);
    return false;
  }
  store(ctx, url, { id: found.id, events: [...found.event_types] });
  return true;
}

export async function createSubscription(ctx: IHookFunctions): Promise<boolean> {
  const url = listeningUrl(ctx);
  const problem = urlProblem(url, await environmentOf(ctx));
  if (problem) throw new NodeOperationError(ctx.getNode(), problem);
  const client = await createHookClient(ctx, credentialType(ctx));
  const events = wantedEvents(ctx);
  const body: WebhookSubscriptionRequest = events
    ? { url, event_types: events as WebhookSubscriptionRequest['event_types'] }
    : { url };
  let created: WebhookSubscription;
  try {
    created = await client.webhooks.create(body);
  } catch (error) {
    // 409: the URL is already subscribed (another activation got there first): replace it once.
    if (!(error instanceof SellingApiError) || error.status !== 409)
      throw refusal(ctx, error, 'subscribe', url);
    const existing = (await subscriptions(ctx, client, url)).filter((s) => s.url === url);
    for (const s of existing) await removeSubscription(ctx, client, s.id, url);
    try {
      created = await client.webhooks.create(body);
    } catch (again) {
      throw refusal(ctx, again, 'subscribe', url);
    }
  }
  store(ctx, url, { id: created.id, events: [...created.event_types] });
  return true;
}

/** DELETE is idempotent on the marketplace; a 404 (gone on its side) counts as deleted too. */
async function removeSubscription(
  ctx: IHookFunctions,
  client: SellingClient,
  id: string,
  url: string,
): Promise<void> {
  try {
    await client.webhooks.delete(id);
  } catch (error) {
    if (error instanceof SellingApiError && error.status === 404) return;
    throw refusal(ctx, error, 'delete the subscription of', url);
  }
}

/**
 * Removes the subscription(s) of this URL: the stored id, and any other subscription of the same URL
 * (static data of a test listening is not always the copy n8n deactivates with). False when the
 * marketplace could not be reached or refused: the id stays stored, for the next activation to find.
 */
export async function deleteSubscription(ctx: IHookFunctions): Promise<boolean> {
  const url = listeningUrl(ctx);
  const known = stored(ctx)[url];
  try {
    const client = await createHookClient(ctx, credentialType(ctx));
    const list = await client.webhooks.list();
    const ids = new Set(list.filter((s) => s.url === url).map((s) => s.id));
    if (known) ids.add(known.id);
    for (const id of ids) await removeSubscription(ctx, client, id, url);
  } catch {
    return false;
  }
  store(ctx, url, undefined);
  return true;
}
