// One operation's route, the request path every call of the API takes: size checks → faults that strike
// before the commit (gateway, network) → auth → rate limit (the gateway's 429) → scopes → the body
// checked against the operation's schema → the handler → faults that strike after the commit → the answer.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Operation } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import { ApiError, apiError } from '../errors.ts';
import type { Handler, HandlerResult } from '../handlers/types.ts';
import { RULE_FIRST_NOUNS } from '../handlers/index.ts';
import { parseOperationBody } from '../handlers/params.ts';
import { authenticate, requireScopes } from '../platform/auth.ts';
import type { EventSink } from '../platform/events.ts';
import type { FaultInjector, FaultRule } from '../platform/faults.ts';
import type { RateLimiter } from '../platform/rate-limiter.ts';
import type { Principal, World } from '../state.ts';
import {
  GATEWAY_TIMEOUT_MESSAGE,
  resetConnection,
  sendRateLimited,
  SERVER_ERROR_MESSAGE,
} from './replies.ts';
import { checkRequestSize, pathOf } from './request.ts';

/** What every operation's route shares: the world, the settings, the meter and the faults. */
export interface RouteDeps {
  world: World;
  config: SimulatorConfig;
  events: EventSink;
  rateLimiter: RateLimiter;
  faults: FaultInjector;
}

/** `/api/v1/products/by-sku/{sku}/` → `/api/v1/products/by-sku/:sku/` */
export function toFastifyPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}

/** The Fastify handler of one operation. */
export function operationRoute(op: Operation, handler: Handler, deps: RouteDeps) {
  const isToken = op.id === 'auth.token';
  const jsonBody = op.body !== undefined && !isToken;
  // Parsed here so no handler names a schema; rule-first handlers check the body themselves.
  const bodySchema = jsonBody && !RULE_FIRST_NOUNS.has(op.id.split('.')[0]!) ? op.body : undefined;
  return async (req: FastifyRequest, reply: FastifyReply) => {
    checkRequestSize(req, deps.config);
    const fault = deps.faults.active ? await pickFault(op, req, deps.faults) : undefined;
    if (fault) {
      const struck = strikeBeforeCommit(fault, op, req, reply, deps);
      if (struck) return struck.answer;
    }
    const admission = admit(op, req, reply, deps);
    if ('limited' in admission) return admission.limited;
    if (jsonBody && Buffer.isBuffer(req.body)) {
      throw apiError('bad-request', 'the request body must be JSON (Content-Type: application/json)');
    }
    const result = await runHandler(op, handler, req, admission.principal, bodySchema, deps);
    if (fault && strikeAfterCommit(fault, req, reply)) return;
    reply.code(result.status ?? 200);
    if (isToken) reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    if (result.body === undefined) return reply.send();
    return reply.type('application/json').send(result.body);
  };
}

/** The fault this request draws (after the delay it may add), if any. */
async function pickFault(
  op: Operation,
  req: FastifyRequest,
  faults: FaultInjector,
): Promise<FaultRule | undefined> {
  const outcome = faults.pick(op.id, req.method, pathOf(req.url), skuOf(req));
  if (outcome.delayMs > 0) await sleep(outcome.delayMs);
  return outcome.rule;
}

/** The SKU a request is about (a body's `sku`, or a by-sku path's), for faults that target one SKU. */
function skuOf(req: FastifyRequest): string | undefined {
  const inPath = (req.params as { sku?: string } | undefined)?.sku;
  if (inPath !== undefined) return inPath;
  const body = req.body as { sku?: unknown } | undefined;
  return body && typeof body === 'object' && typeof body.sku === 'string' ? body.sku : undefined;
}

/**
 * A fault that strikes before anything is committed: an error status is thrown (the error handler
 * answers it), a reset or a 429 storm answers here (`answer`). Undefined for the faults that strike
 * after the commit.
 */
function strikeBeforeCommit(
  fault: FaultRule,
  op: Operation,
  req: FastifyRequest,
  reply: FastifyReply,
  { world, faults }: RouteDeps,
): { answer: FastifyReply | void } | undefined {
  switch (fault.type) {
    case 'error_500':
      throw new ApiError(500, fault.code ?? 'generic_error', SERVER_ERROR_MESSAGE);
    case 'error_502':
      throw new ApiError(502, 'unexpected_response', '');
    case 'error_422': {
      const code = fault.code ?? 'validation';
      throw new ApiError(422, code, fault.message ?? `the request was refused (${code})`);
    }
    case 'timeout_before_commit':
      throw new ApiError(504, 'generic_error', GATEWAY_TIMEOUT_MESSAGE);
    case 'reset_before_commit':
      return { answer: resetConnection(req, reply) };
    case 'rate_limit_storm':
      return { answer: sendRateLimited(reply, world, op.group ?? 'general', faults.stormWaitMs(fault)) };
  }
  return undefined;
}

/**
 * Who calls (bearer operations only), metered in the operation's rate group — over the limit, the
 * gateway's 429 answers here (`limited`) — then checked for the operation's scopes.
 */
function admit(
  op: Operation,
  req: FastifyRequest,
  reply: FastifyReply,
  { world, rateLimiter }: RouteDeps,
): { principal: Principal | undefined } | { limited: FastifyReply } {
  if (op.auth !== 'bearer') return { principal: undefined };
  const principal = authenticate(world, req.headers.authorization);
  if (op.group) {
    const decision = rateLimiter.check(principal, op.group);
    if (!decision.allowed)
      return { limited: sendRateLimited(reply, world, decision.group, decision.retryAfterSimMs) };
  }
  requireScopes(op, principal);
  return { principal };
}

/**
 * The handler, given the caller's shop (which must still exist) and the request's parts: the body
 * checked against `bodySchema` when there is one.
 */
async function runHandler(
  op: Operation,
  handler: Handler,
  req: FastifyRequest,
  principal: Principal | undefined,
  bodySchema: Operation['body'],
  { world, config, events }: RouteDeps,
): Promise<HandlerResult> {
  const seller = principal ? world.sellers.get(principal.sellerId) : undefined;
  if (principal && !seller) throw apiError('unauthorized', 'the credential’s shop no longer exists');
  return handler({
    op,
    world,
    config,
    principal: principal ?? (undefined as unknown as Principal),
    seller: seller ?? (undefined as never),
    params: req.params as Record<string, string>,
    query: req.query as Record<string, unknown>,
    body: bodySchema ? parseOperationBody(bodySchema, req.body) : req.body,
    now: world.clock.now(),
    events,
  });
}

/**
 * A fault that strikes once the handler has committed: a 504 or 500 is thrown (the change stays), a
 * reset drops the connection (true: nothing more to answer).
 */
function strikeAfterCommit(fault: FaultRule, req: FastifyRequest, reply: FastifyReply): boolean {
  if (fault.type === 'timeout_after_commit') {
    throw new ApiError(504, 'generic_error', GATEWAY_TIMEOUT_MESSAGE);
  }
  if (fault.type === 'error_500_after_commit') {
    throw new ApiError(500, fault.code ?? 'generic_error', SERVER_ERROR_MESSAGE);
  }
  if (fault.type === 'reset_after_commit') {
    resetConnection(req, reply);
    return true;
  }
  return false;
}
