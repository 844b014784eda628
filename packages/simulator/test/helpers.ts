// Shared test set-up: a simulator on 127.0.0.1 with one seller, an API key and an address, and a
// tiny fetch wrapper that returns status, headers and parsed body.
import {
  startSimulator,
  createSeller,
  createApiKey,
  addAddress,
  type RunningSimulator,
  type StartSimulatorOptions,
} from '../src/index.ts';
import type { SellerState } from '../src/state.ts';

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
  const seller = createSeller(sim.world, { username: 'test-shop', countryCode: 'GB' });
  const { key } = createApiKey(sim.world, 'partner-test', seller.id);
  const address = addAddress(sim.world, seller);
  return {
    sim,
    seller,
    apiKey: key,
    addressId: address.id,
    call: (method, path, body, init = {}) => call(sim.url, method, path, body, { token: key, ...init }),
  };
}
