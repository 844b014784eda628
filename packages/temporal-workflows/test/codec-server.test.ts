// The codec endpoint (R14) over real HTTP on 127.0.0.1: one allowed origin (never `*`), a bearer token
// unless the local dev stack explicitly serves without one, a bounded body, /encode only when asked.
import { randomBytes } from 'node:crypto';
import { AesGcmCodec } from '../src/codec/codec.ts';
import { startCodecServer, type CodecServerOptions } from '../src/codec/codec-server.ts';

const codec = new AesGcmCodec(randomBytes(32));
const UI = 'http://127.0.0.1:8233';
const TOKEN = 'codec-token-of-this-test';
const servers: { close(): Promise<void> }[] = [];

async function serve(over: Partial<CodecServerOptions> = {}) {
  const server = await startCodecServer({ codec, allowOrigin: UI, token: TOKEN, ...over });
  servers.push(server);
  return server;
}
afterAll(async () => {
  for (const s of servers) await s.close();
});

const plain = { metadata: { encoding: Buffer.from('json/plain').toString('base64') }, data: 'e30=' };
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });

describe('codec server', () => {
  it('refuses to start open: no allowOrigin, a `*` origin, or no token without an explicit opt-out', async () => {
    await expect(startCodecServer({ codec, token: TOKEN } as unknown as CodecServerOptions)).rejects.toThrow(
      /allowOrigin/,
    );
    await expect(startCodecServer({ codec, allowOrigin: '*', token: TOKEN })).rejects.toThrow(/allowOrigin/);
    await expect(startCodecServer({ codec, allowOrigin: UI })).rejects.toThrow(/token/);
  });

  it('answers CORS for the one allowed origin and refuses requests from any other', async () => {
    const server = await serve();
    const preflight = await fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { origin: UI } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(UI);
    const sealed = (await codec.encode([{ metadata: {}, data: Buffer.from('{}') }]))[0]!;
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(sealed.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(sealed.data!).toString('base64'),
        },
      ],
    });
    const other = await post(`${server.url}/decode`, body, { origin: 'http://evil.example' });
    expect(other.status).toBe(403);
    const ok = await post(`${server.url}/decode`, body, { origin: UI });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    const decoded = (await ok.json()) as { payloads: { data: string }[] };
    expect(Buffer.from(decoded.payloads[0]!.data, 'base64').toString()).toBe('{}');
    // A few origins (the same UI as localhost): each request gets its own origin back.
    const both = await serve({ allowOrigin: [UI, 'http://localhost:8233'] });
    const local = await post(`${both.url}/decode`, body, { origin: 'http://localhost:8233' });
    expect([local.status, local.headers.get('access-control-allow-origin')]).toEqual([
      200,
      'http://localhost:8233',
    ]);
    expect((await post(`${both.url}/decode`, body, { origin: 'http://localhost:9999' })).status).toBe(403);
  });

  it('requires the bearer token (a wrong one, of any length, is refused)', async () => {
    const server = await serve();
    const body = JSON.stringify({ payloads: [plain] });
    for (const authorization of ['', 'Bearer x', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`]) {
      const res = await post(`${server.url}/decode`, body, { authorization });
      expect([authorization, res.status]).toEqual([authorization, 401]);
    }
    expect((await post(`${server.url}/decode`, body)).status).toBe(200);
  });

  it('the dev stack can serve without a token, only when it says so', async () => {
    const server = await serve({ token: undefined, unauthenticated: true });
    const res = await post(`${server.url}/decode`, JSON.stringify({ payloads: [plain] }), {
      authorization: '',
    });
    expect(res.status).toBe(200);
  });

  it('a body above the limit gets 413 (4 MiB by default)', async () => {
    const server = await serve();
    const big = JSON.stringify({ payloads: [{ ...plain, data: 'A'.repeat(4 * 1024 * 1024 + 16) }] });
    expect((await post(`${server.url}/decode`, big)).status).toBe(413);
    const small = await serve({ maxBodyBytes: 64 });
    expect((await post(`${small.url}/decode`, JSON.stringify({ payloads: [plain, plain] }))).status).toBe(
      413,
    );
    // The server still answers afterwards.
    expect((await post(`${server.url}/decode`, JSON.stringify({ payloads: [plain] }))).status).toBe(200);
  });

  it('/encode is served only when asked for', async () => {
    const body = JSON.stringify({ payloads: [plain] });
    expect((await post(`${(await serve()).url}/encode`, body)).status).toBe(404);
    const res = await post(`${(await serve({ allowEncode: true })).url}/encode`, body);
    expect(res.status).toBe(200);
    const out = (await res.json()) as { payloads: { metadata: Record<string, string> }[] };
    expect(Buffer.from(out.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  });

  it('a body that is not a payload list gets 400 without echoing it', async () => {
    const server = await serve();
    const res = await post(`${server.url}/decode`, '{"payloads": "secret-value"}');
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('secret-value');
  });
});
