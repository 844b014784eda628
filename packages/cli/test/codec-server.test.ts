// `selling-kit codec-server`, the production codec endpoint (deploy/README.md "The Temporal UI"): it
// refuses to start without a bearer token (or with a short one), and once started it decodes a payload
// sealed with the master ring only for a request carrying the token from an allowed origin; without
// the token 401, from another origin 403, and /encode is not served.
// @needs temporal
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AesGcmCodec, parseCodecKeys } from '@selling-kit/temporal-workflows';
import { CODEC_SERVER_TOKEN_ENV } from '../src/commands/codec-server.ts';
import { cliEnv, expectFailure, runCli } from './helpers.ts';

const ORIGIN = 'https://temporal-ui.example.test';
const ctx = cliEnv();
const token = randomBytes(32).toString('hex');

const start = (port: number, env: NodeJS.ProcessEnv) => {
  let url = '';
  let kill: (() => void) | undefined;
  const ended = runCli(ctx, ['codec-server', '--allow-origin', ORIGIN, '--port', String(port)], {
    env,
    onStderr: (text, child) => {
      const m = /codec endpoint (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (m && !url) {
        url = m[1]!;
        kill = () => child.kill('SIGTERM');
      }
    },
  });
  return { ended, url: () => url, stop: () => kill?.() };
};

describe('selling-kit codec-server', () => {
  it('refuses to start without a bearer token, or with a short one, naming the variable', async () => {
    const none = await runCli(ctx, ['--json', 'codec-server', '--allow-origin', ORIGIN, '--port', '0'], {
      env: { [CODEC_SERVER_TOKEN_ENV]: '' },
    });
    expectFailure(none, 2, 'codec_server_token_missing');
    expect(none.json.error.message).toContain(CODEC_SERVER_TOKEN_ENV);
    const short = join(ctx.home, 'short-token');
    writeFileSync(short, 'abc\n');
    const weak = await runCli(ctx, [
      '--json',
      'codec-server',
      '--allow-origin',
      ORIGIN,
      '--token-file',
      short,
    ]);
    expectFailure(weak, 2, 'codec_server_token_weak');
  });

  it('decodes for the token from the allowed origin only; 401 without it, 403 from another origin, no /encode', async () => {
    const server = start(0, { [CODEC_SERVER_TOKEN_ENV]: token });
    const deadline = Date.now() + 60_000;
    while (!server.url()) {
      if (Date.now() > deadline) throw new Error('codec-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    try {
      const codec = new AesGcmCodec(parseCodecKeys(ctx.env.SELLING_KIT_CODEC_KEY!, 'SELLING_KIT_CODEC_KEY'));
      const [sealed] = await codec.encode([
        { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"sku":"A-1"}') },
      ]);
      const body = JSON.stringify({
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(sealed!.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
            ),
            data: Buffer.from(sealed!.data!).toString('base64'),
          },
        ],
      });
      const post = (path: string, headers: Record<string, string>) =>
        fetch(`${server.url()}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      const withToken = { origin: ORIGIN, authorization: `Bearer ${token}` };
      const ok = await post('/decode', withToken);
      expect(ok.status).toBe(200);
      const decoded = (await ok.json()) as { payloads: { data: string }[] };
      expect(Buffer.from(decoded.payloads[0]!.data, 'base64').toString()).toBe('{"sku":"A-1"}');
      expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);

      expect((await post('/decode', { origin: ORIGIN })).status).toBe(401);
      expect((await post('/decode', { origin: ORIGIN, authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await post('/decode', { ...withToken, origin: 'https://evil.example.test' })).status).toBe(403);
      expect((await post('/encode', withToken)).status).toBe(404);
    } finally {
      server.stop();
    }
    expect((await server.ended).code).toBe(0);
  });
});
