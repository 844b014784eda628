// Where the worker's order flows send their events (the hand-off to fulfilment, reminders): the operator's
// setting, read from the environment. The URL is the operator's own endpoint (an n8n Webhook node on the
// same host is usual), so it is not held to the feed policy's public-address rule; a job never names it.
import { readFileSync } from 'node:fs';
import type { OrderEventsTarget } from '../webhooks/order-types.ts';
import { isLoopbackHost } from '@selling-kit/api-client/core';
import { PLAIN_HTTP_HOSTS_ENV, plainHttpHosts } from '../activities/clients.ts';

export type { OrderEventsTarget };

export const ORDER_EVENTS_URL_ENV = 'SELLING_KIT_ORDER_EVENTS_URL';
/** A file holding the bearer token the endpoint expects (never the token itself in the environment). */
export const ORDER_EVENTS_TOKEN_FILE_ENV = 'SELLING_KIT_ORDER_EVENTS_TOKEN_FILE';

export class OrderEventsSettingError extends Error {}

/** The endpoint, or undefined when unset (order flows then only log their reminders). Throws naming the variable. */
export function orderEventsFromEnv(env: NodeJS.ProcessEnv = process.env): OrderEventsTarget | undefined {
  const raw = env[ORDER_EVENTS_URL_ENV]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OrderEventsSettingError(`${ORDER_EVENTS_URL_ENV} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new OrderEventsSettingError(`${ORDER_EVENTS_URL_ENV} must be an http(s) URL, not ${url.protocol}`);
  // The token and the buyer's address travel in it: plain http only to this host, or to a host the
  // operator names for plain http (SELLING_KIT_PLAIN_HTTP_HOSTS, e.g. compose's own network).
  if (
    url.protocol === 'http:' &&
    !isLoopbackHost(url.hostname) &&
    !plainHttpHosts(env).includes(url.hostname)
  )
    throw new OrderEventsSettingError(
      `${ORDER_EVENTS_URL_ENV} must be https (plain http only to this machine, or to a host listed in ${PLAIN_HTTP_HOSTS_ENV})`,
    );
  if (url.username || url.password)
    throw new OrderEventsSettingError(
      `${ORDER_EVENTS_URL_ENV} must not carry credentials: put the token in ${ORDER_EVENTS_TOKEN_FILE_ENV}`,
    );
  const tokenFile = env[ORDER_EVENTS_TOKEN_FILE_ENV]?.trim();
  if (!tokenFile) return { url: url.href };
  let token: string;
  try {
    token = readFileSync(tokenFile, 'utf8').trim();
  } catch (e) {
    throw new OrderEventsSettingError(
      `${ORDER_EVENTS_TOKEN_FILE_ENV} cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (!token) throw new OrderEventsSettingError(`${ORDER_EVENTS_TOKEN_FILE_ENV} names an empty file`);
  return { url: url.href, token };
}
