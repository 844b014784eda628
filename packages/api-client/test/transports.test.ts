// The Node transports (undici, the default, and got) over real HTTP on 127.0.0.1: every status comes
// back as an answer, redirects are not followed, per-attempt time limits, AbortSignal, refused
// connections marked as never sent, keep-alive connection reuse.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  RequestAbortedError,
  TransportError,
  createClient,
  createGotTransport,
  createUndiciTransport,
  nodeSleep,
  type Transport,
} from '../src/index.ts';

let server: http.Server;
let base = '';
let connections = 0;
const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url === '/slow') {
        const t = setTimeout(() => res.end('{"late":true}'), 2000);
        res.on('close', () => clearTimeout(t));
        return;
      }
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/elsewhere' }).end();
        return;
      }
      const m = /^\/status\/(\d+)/.exec(req.url ?? '');
      res.writeHead(m ? Number(m[1]) : 200, { 'content-type': 'application/json', 'x-custom': 'yes' });
      res.end(JSON.stringify({ ok: true, echo: body || null }));
    });
  });
  server.on('connection', () => connections++);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const transports: [string, () => Transport & { close(): unknown }][] = [
  ['undici', () => createUndiciTransport()],
  ['got', () => createGotTransport()],
];

describe.each(transports)('%s transport', (_name, make) => {
  let transport: Transport & { close(): unknown };
  beforeEach(() => {
    transport = make();
    seen.length = 0;
  });
  afterEach(async () => {
    await transport.close();
  });

  it('returns every status as an answer with headers and body text', async () => {
    for (const status of [200, 404, 422, 500, 504]) {
      const res = await transport.send({ method: 'GET', url: `${base}/status/${status}`, headers: {} });
      expect(res.status).toBe(status);
      expect(res.headers['x-custom']).toBe('yes');
      expect(JSON.parse(res.body)).toEqual({ ok: true, echo: null });
    }
  });

  it('sends method, headers and body as given', async () => {
    await transport.send({
      method: 'POST',
      url: `${base}/echo`,
      headers: { 'content-type': 'application/json', authorization: 'Bearer t', 'x-request-id': 'r1' },
      body: '{"a":1}',
    });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/echo', body: '{"a":1}' });
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer t',
      'x-request-id': 'r1',
      'content-type': 'application/json',
    });
  });

  it('does not follow redirects', async () => {
    const res = await transport.send({ method: 'GET', url: `${base}/redirect`, headers: {} });
    expect(res.status).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it('enforces the per-attempt time limit', async () => {
    const err = await transport
      .send({ method: 'GET', url: `${base}/slow`, headers: {}, timeoutMs: 100 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'timeout', requestSent: true });
  });

  it('stops when the AbortSignal fires', async () => {
    const controller = new AbortController();
    const pending = transport.send({
      method: 'GET',
      url: `${base}/slow`,
      headers: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it('marks a refused connection as never sent', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const err = await transport
      .send({ method: 'POST', url: `http://127.0.0.1:${port}/x`, headers: {}, body: '{}' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'network', requestSent: false });
  });

  it('keeps connections alive between sequential calls', async () => {
    const before = connections;
    for (let i = 0; i < 30; i++)
      await transport.send({ method: 'GET', url: `${base}/status/200`, headers: {} });
    // undici may open a second socket while the first finishes its previous answer; never one per call.
    expect(connections - before).toBeGreaterThanOrEqual(1);
    expect(connections - before).toBeLessThanOrEqual(2);
  });

  it('drives the whole client (with nodeSleep)', async () => {
    const client = createClient({
      baseUrl: base,
      apiKey: 'pak_transport_test_key',
      transport,
      sleep: nodeSleep,
    });
    const res = await client.request<{ ok: boolean }>({ method: 'GET', path: '/status/200' });
    expect(res.ok).toBe(true);
    expect(seen[0]!.headers.authorization).toBe('Bearer pak_transport_test_key');
    expect(seen[0]!.headers['user-agent']).toMatch(/^selling-kit-api-client\//);
    await client.close();
  });
});

describe('nodeSleep', () => {
  it('rejects with RequestAbortedError when aborted', async () => {
    const controller = new AbortController();
    const p = nodeSleep(10_000, controller.signal);
    controller.abort();
    await expect(p).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(nodeSleep(1)).resolves.toBeUndefined();
  });
});
