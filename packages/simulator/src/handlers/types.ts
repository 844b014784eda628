// The contract between the server and the per-noun handler files: a handler receives the
// authenticated seller and the parsed request, returns a status and body, or throws ApiError.
import type { Operation } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import type { EventSink } from '../platform/events.ts';
import type { Principal, SellerState, World } from '../state.ts';

export interface HandlerContext {
  op: Operation;
  world: World;
  config: SimulatorConfig;
  principal: Principal;
  seller: SellerState;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** Simulated now (ms), read once per request. */
  now: number;
  events: EventSink;
}

export interface HandlerResult {
  status?: number;
  /** undefined → empty 200 body (as the public reference documents for most writes). */
  body?: unknown;
}

export type Handler = (ctx: HandlerContext) => HandlerResult | Promise<HandlerResult>;

/** Operation id (see the client core's operation table) → handler. */
export type Handlers = Record<string, Handler>;
