// The contract recording hook: with SELLING_KIT_CONTRACT_DIR set, every answer to an operation of the
// table is appended, with its request, to `<dir>/<pid>.ndjson`; the test suite's global teardown then
// checks each exchange against the generated OpenAPI document (scripts/contract/). Off by default: no
// hook is registered, so a normal run pays nothing.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

export const CONTRACT_DIR_ENV = 'SELLING_KIT_CONTRACT_DIR';
/** The header every request of the typed client carries: marks the requests "the client sends". */
export const CLIENT_REQUEST_HEADER = 'x-request-id';

/** One recorded exchange (one NDJSON line). */
export interface ContractExchange {
  operationId: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  /** Sent by the typed client (it always sets CLIENT_REQUEST_HEADER), not by a test's raw request. */
  fromClient: boolean;
  requestContentType?: string;
  requestBody?: unknown;
  status: number;
  contentType?: string;
  /** The response body as sent (text). */
  body: string;
}

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
      fromClient: req.headers[CLIENT_REQUEST_HEADER] !== undefined,
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
