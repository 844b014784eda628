// Test plumbing: a simulator on 127.0.0.1 with one shop (the package's `addShop`: a seller, an API key
// and an address), a tiny fetch wrapper that returns status, headers and parsed body, the admin caller,
// stand-in handlers, PKCE and raw-socket helpers. Shared data and per-file set-up are in ./fixtures.ts.
import { startSimulator, type RunningSimulator, type StartSimulatorOptions } from '../src/index.ts';
import type { SellerState } from '../src/state.ts';
import { addShop } from '../src/testing.ts';
import type { Handlers } from '../src/handlers/types.ts';
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';

export interface TestShop {
  sim: RunningSimulator;
  seller: SellerState;
  apiKey: string;
  addressId: number;
  call: (
    method: string,
    path: string,
    body?: unknown,
    init?: { token?: string; headers?: Record<string, string> },
  ) => Promise<CallResult>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  init: { token?: string; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function startTestShop(options: StartSimulatorOptions = {}): Promise<TestShop> {
  const sim = await startSimulator({ ...options, config: { fetchPictures: false, ...options.config } });
  const { seller, apiKey, address } = addShop(sim, {
    username: 'test-shop',
    partnerId: 'partner-test',
    countryCode: 'GB',
  });
  return {
    sim,
    seller,
    apiKey,
    addressId: address.id,
    call: (method, path, body, init = {}) => call(sim.url, method, path, body, { token: apiKey, ...init }),
  };
}

// --- platform helpers (additive) ----------------------------------------------------------------

/** Calls the admin listener (JSON in, parsed JSON out). */
export function adminCall(
  sim: RunningSimulator,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<CallResult> {
  const token = sim.config.adminToken;
  return call(sim.adminUrl, method, path, body, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

/**
 * Test-only handlers for one authenticated operation per rate group, so platform tests do not depend
 * on the domain handlers: products.create (create_update), insights.shop (insights), shop.get and
 * orders.list (general).
 */
export const probeHandlers: Handlers = {
  'products.create': ({ seller }) => ({ body: { probe: 'create_update', seller: seller.id } }),
  'insights.shop': ({ seller }) => ({ body: { probe: 'insights', seller: seller.id } }),
  'shop.get': ({ seller }) => ({ body: { probe: 'general', id: seller.id, username: seller.username } }),
  'orders.list': () => ({ body: { meta: { cursor: null, has_more: false }, data: [] } }),
};

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** POSTs form fields to a path (the token endpoint). */
export async function postForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string>,
): Promise<CallResult> {
  return call(baseUrl, 'POST', path, new URLSearchParams(fields).toString(), {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** Sends raw bytes over a fresh TCP connection and returns whatever comes back before the close. */
export function rawHttp(baseUrl: string, payload: string | Buffer, timeoutMs = 5000): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: hostname, port: Number(port) });
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', done);
    socket.on('close', done);
    socket.on('error', done);
    socket.write(payload, () => socket.end());
  });
}
