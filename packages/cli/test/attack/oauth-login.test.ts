// Attacks (L1) on `selling-kit auth login` and on the base URLs the CLI stores:
// - a local process or a web page (<img src=http://127.0.0.1:<port>/callback>) hits the loopback
//   callback first with a wrong state: once that aborted the login; now it gets a plain page and the
//   login keeps waiting for the real consent;
// - `--timeout abc` gave an instant timeout (NaN), `--callback-port` any value: both checked now;
// - `--base-url http://<remote>` sent the client secret, the code and the tokens, or an API key, in
//   cleartext: refused before anything is sent or written.
// @needs temporal
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { freePort } from '@selling-kit/simulator/testing';
import { authLoginArgs, cliEnv, expectFailure, runCli, type CliEnv } from '../helpers.ts';

let sim: RunningSimulator;
let ctx: CliEnv;
let port: number;
const CLIENT = { clientId: 'attack_client', clientSecret: 'attack_secret_0123' };

beforeAll(async () => {
  sim = await startSimulator({ demo: true, config: { fetchPictures: false } });
  ctx = cliEnv({ SECRET: CLIENT.clientSecret });
  port = await freePort();
  const res = await fetch(`${sim.adminUrl}/admin/oauth-clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      partnerId: 'demo-crosslister',
      redirectUris: [`http://127.0.0.1:${port}/callback`],
      ...CLIENT,
    }),
  });
  expect(res.status).toBeLessThan(300);
});
afterAll(() => sim?.close());

const login = (extra: string[] = [], baseUrl = sim.url) =>
  authLoginArgs(CLIENT.clientId, baseUrl, ['--callback-port', String(port), ...extra]);

describe('attack: the OAuth login', () => {
  it('a callback with a wrong (or no) state is answered with a plain page and ignored; the real consent still connects', async () => {
    const forged: { status: number; text: string }[] = [];
    let opened = false;
    const r = await runCli(ctx, login(), {
      onStderr: (text) => {
        const url = /^(http\S+oauth\/authorize\S+)$/m.exec(text)?.[1];
        if (!url || opened) return;
        opened = true;
        void (async () => {
          // The attacker first: two forged callbacks, each answered without ending the login.
          for (const query of ['?code=evil&state=not-the-state', '?error=access_denied']) {
            const res = await fetch(`http://127.0.0.1:${port}/callback${query}`);
            forged.push({ status: res.status, text: await res.text() });
          }
          // Then the browser: the consent page approves and redirects to the loopback callback.
          const consent = await fetch(url, { redirect: 'manual' });
          await fetch(consent.headers.get('location')!);
        })();
      },
    });
    expect(forged).toEqual([
      { status: 400, text: expect.stringContaining('not the answer this login is waiting for') },
      { status: 400, text: expect.stringContaining('not the answer this login is waiting for') },
    ]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ shop: 'seller-1001', baseUrl: sim.url });
  }, 120_000);

  it.each([
    [['--timeout', 'abc'], 'bad_timeout', '--timeout must be a whole number of seconds from 1 to 3600'],
    [['--timeout', '0'], 'bad_timeout', '--timeout must be a whole number of seconds from 1 to 3600'],
    [['--callback-port', '70000'], 'bad_callback_port', '--callback-port must be a port from 1 to 65535'],
    [['--callback-port', '80x'], 'bad_callback_port', '--callback-port must be a port from 1 to 65535'],
  ])('%j is refused before anything listens: %s', async (flags, code, message) => {
    const home = cliEnv({ SECRET: CLIENT.clientSecret });
    const r = await runCli(home, login(flags));
    expectFailure(r, 2, { code, message });
    expect(existsSync(join(home.home, 'tokens.sealed'))).toBe(false);
  });

  it('a cleartext base URL to a remote host is refused before the secret is sent; nothing stored', async () => {
    const home = cliEnv({ SECRET: CLIENT.clientSecret, KEY: 'pak_attack_0123456789' });
    const r = await runCli(home, login([], 'http://192.0.2.1:4010'));
    expectFailure(r, 2, {
      code: 'insecure_base_url',
      message: expect.stringContaining('must use https:'),
    });
    expect(existsSync(join(home.home, 'tokens.sealed'))).toBe(false);
    const shop = await runCli(home, [
      '--json',
      'shops',
      'add',
      'remote',
      '--api-key-env',
      'KEY',
      '--base-url',
      'http://api.example.com',
      '--no-check',
    ]);
    expectFailure(shop, 2, 'insecure_base_url');
    expect(existsSync(join(home.home, 'credentials.json'))).toBe(false);
    for (const out of [r, shop]) expect(out.stdout + out.stderr).not.toMatch(/attack_secret|pak_attack/);
  });
});
