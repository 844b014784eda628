// The codec endpoint the Temporal UI (or `temporal workflow show --codec-endpoint`) calls to show
// decrypted payloads to whoever holds the key: POST /decode and /encode with
// `{ payloads: [{ metadata: { k: base64 }, data: base64 }] }`, as Temporal's codec server protocol says.
// An optional bearer token keeps it from being an open decryption oracle.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

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
  /** Origin allowed by CORS (the Temporal UI), e.g. http://127.0.0.1:8233. */
  allowOrigin?: string;
  /** When set, requests need `Authorization: Bearer <token>`. */
  token?: string;
}

export async function startCodecServer(
  options: CodecServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const cors = {
      'access-control-allow-origin': options.allowOrigin ?? '*',
      'access-control-allow-headers': 'content-type, authorization, x-namespace',
      'access-control-allow-methods': 'POST, OPTIONS',
    };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    const op = req.url === '/decode' ? 'decode' : req.url === '/encode' ? 'encode' : undefined;
    if (req.method !== 'POST' || !op) return res.writeHead(404, cors).end();
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`)
      return res.writeHead(401, cors).end();
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { payloads: JsonPayload[] };
      const out = await options.codec[op](body.payloads.map(fromJson));
      res
        .writeHead(200, { ...cors, 'content-type': 'application/json' })
        .end(JSON.stringify({ payloads: out.map(toJson) }));
    } catch {
      res.writeHead(400, cors).end(JSON.stringify({ message: 'payloads could not be processed' }));
    }
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}
