// The contract recording hook: with SELLING_KIT_CONTRACT_DIR set, every answer to an operation of the
// table is appended, with its request, to `<dir>/<pid>.ndjson`; the test suite's global teardown then
// checks each exchange against the generated OpenAPI document (api-client scripts/contract-check.ts). Off by default: no
// hook is registered, so a normal run pays nothing.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER } from '@selling-kit/api-client/core';
import { CONTRACT_DIR_ENV, type ContractExchange } from '@selling-kit/api-client/openapi';

/** One line; a request body too deep for JSON.stringify (a hostile test body) is recorded as a marker. */
function serialise(exchange: ContractExchange): string {
  try {
    return JSON.stringify(exchange);
  } catch {
    return JSON.stringify({ ...exchange, requestBody: '<not serialisable>' });
  }
}

/** Registers the hook when the environment asks for it; returns whether it did. */
export function recordContract(app: FastifyInstance, env: NodeJS.ProcessEnv = process.env): boolean {
  const dir = env[CONTRACT_DIR_ENV];
  if (!dir) return false;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.ndjson`);
  app.addHook('onSend', async (req, reply, payload) => {
    const operationId = (req.routeOptions.config as { operationId?: string } | undefined)?.operationId;
    if (!operationId) return payload;
    const q = req.url.indexOf('?');
    const exchange: ContractExchange = {
      operationId,
      method: req.method,
      path: q === -1 ? req.url : req.url.slice(0, q),
      query: { ...(req.query as Record<string, unknown>) },
      fromClient: req.headers[REQUEST_ID_HEADER] !== undefined, // the typed client always sets it
      requestContentType: req.headers['content-type'],
      requestBody: Buffer.isBuffer(req.body) ? '<bytes>' : req.body,
      status: reply.statusCode,
      contentType: String(reply.getHeader('content-type') ?? '') || undefined,
      body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '',
    };
    // Synchronous: a line is on disk before the answer leaves, so a process that exits right after
    // loses nothing.
    appendFileSync(file, `${serialise(exchange)}\n`);
    return payload;
  });
  return true;
}
