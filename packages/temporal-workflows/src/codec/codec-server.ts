// The codec endpoint the Temporal UI (or `temporal workflow show --codec-endpoint`) calls to show
// decrypted payloads to whoever holds the key: POST /decode (and /encode when asked for) with
// `{ payloads: [{ metadata: { k: base64 }, data: base64 }] }`, as Temporal's codec server protocol says.
// It is a decryption oracle, so it is closed by default: CORS for one named origin (never `*`; a request
// from another origin is refused), a bearer token (compared in constant time) unless the local dev stack
// explicitly serves without one (the dev UI cannot send one), a bounded body, /encode off (it would forge
// validly sealed payloads; the UI only decodes). It listens on 127.0.0.1 only.
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** Largest request body by default: 4 MiB (two 2 MiB payloads, Temporal's payload limit). */
export const CODEC_SERVER_MAX_BODY_BYTES = 4 * 1024 * 1024;

const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
  ),
  data: p.data === undefined ? undefined : Buffer.from(p.data, 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: p.data ? Buffer.from(p.data).toString('base64') : undefined,
});

export interface CodecServerOptions {
  codec: PayloadCodec;
  port?: number;
  /**
   * The origin allowed by CORS (the Temporal UI's), e.g. http://127.0.0.1:8233, or a few (the same UI as
   * localhost). Required; never `*`.
   */
  allowOrigin: string | readonly string[];
  /** Requests need `Authorization: Bearer <token>`. Required unless `unauthenticated`. */
  token?: string;
  /** Serve without a token: only for the local dev stack, whose UI cannot send one. */
  unauthenticated?: boolean;
  /** Serve POST /encode too (default off: it seals whatever it is given). */
  allowEncode?: boolean;
  /** Larger bodies get 413 (default CODEC_SERVER_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
}

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

const originOf = (text: string) => {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
};

/** The allowed origins, checked: each one a real origin (scheme, host, port), never `*`. */
function checkOptions(options: CodecServerOptions): string[] {
  const origins = options.allowOrigin === undefined ? [] : [options.allowOrigin].flat();
  if (!origins.length || origins.some((o) => originOf(o) !== o))
    throw new Error(
      'the codec server needs allowOrigin: the Temporal UI\'s origin, e.g. "http://127.0.0.1:8233" (never "*")',
    );
  if (!options.token && !options.unauthenticated)
    throw new Error(
      'the codec server needs a token (or `unauthenticated: true`, for the local dev stack only)',
    );
  return origins;
}

/** The body, or a 413 as soon as it is larger than `max` (the rest is read and dropped, not kept). */
async function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > max) throw new HttpError(413, 'the body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > max) throw new HttpError(413, 'the body is too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function parsePayloads(body: Buffer): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const list = (parsed as { payloads?: unknown } | undefined)?.payloads;
  try {
    if (Array.isArray(list)) return (list as JsonPayload[]).map(fromJson);
  } catch {
    // a value that is not base64 text: refused below
  }
  throw new HttpError(400, 'the body must be JSON { "payloads": [{ "metadata": {…}, "data": "…" }] }');
}

export async function startCodecServer(
  options: CodecServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const origins = checkOptions(options);
  const expected = options.token ? digest(`Bearer ${options.token}`) : undefined;
  const maxBody = options.maxBodyBytes ?? CODEC_SERVER_MAX_BODY_BYTES;
  const server = http.createServer(async (req, res) => {
    const origin = req.headers.origin;
    const cors = {
      'access-control-allow-origin': origin && origins.includes(origin) ? origin : origins[0]!,
      'access-control-allow-headers': 'content-type, authorization, x-namespace',
      'access-control-allow-methods': 'POST, OPTIONS',
      vary: 'origin',
    };
    const send = (status: number, body?: unknown) => {
      if (res.headersSent) return;
      // After a refusal the request body is not read: close the connection rather than drain it.
      const close = status >= 400 && !req.complete ? { connection: 'close' } : {};
      res
        .writeHead(status, { ...cors, ...close, ...(body ? { 'content-type': 'application/json' } : {}) })
        .end(body ? JSON.stringify(body) : undefined);
    };
    try {
      if (origin !== undefined && !origins.includes(origin))
        throw new HttpError(403, 'this origin is not allowed');
      if (req.method === 'OPTIONS') return send(204);
      const op =
        req.url === '/decode'
          ? 'decode'
          : req.url === '/encode' && options.allowEncode
            ? 'encode'
            : undefined;
      if (req.method !== 'POST' || !op) throw new HttpError(404, 'POST /decode');
      if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected))
        throw new HttpError(401, 'a bearer token is required');
      const payloads = parsePayloads(await readBody(req, maxBody));
      let out: Payload[];
      try {
        out = await options.codec[op](payloads);
      } catch (e) {
        // The codec's own messages name key ids, never keys or payload content.
        throw new HttpError(400, (e as Error).message);
      }
      send(200, { payloads: out.map(toJson) });
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      send(status, { message: e instanceof HttpError ? e.message : 'payloads could not be processed' });
    }
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeIdleConnections();
      }),
  };
}
