// Attacks on D1 at worker start (worker-main, a real process and Temporal server): a worker with a token
// store but no token-store key does not start (it would otherwise fall back to a key the codec's holders
// share); a bad SELLING_KIT_CLIENT_AUTH is refused by name; a worker without a codec says loudly that it
// takes any input from anyone who can reach Temporal (L12).
// @needs temporal
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWorkerMainToExit } from '../helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'sk-auth-start-'));
const credentialsFile = join(dir, 'credentials.json');
writeFileSync(credentialsFile, JSON.stringify({ s: { baseUrl: 'http://127.0.0.1:9', apiKey: 'pak_x' } }));

/** worker-main with `env` (a task queue of its own, this file's credentials and keys); stopped (SIGTERM) as soon as it says it is ready. */
const runWorkerMain = (env: NodeJS.ProcessEnv) =>
  runWorkerMainToExit({
    SELLING_KIT_TASK_QUEUE: `auth-start-${randomUUID()}`,
    SELLING_KIT_CREDENTIALS: credentialsFile,
    SELLING_KIT_KEY_FILE: join(dir, 'codec.key'),
    SELLING_KIT_CODEC_KEY: randomBytes(32).toString('base64'),
    SELLING_KIT_JOB_STORE: join(dir, 'jobs'),
    SELLING_KIT_TOKEN_STORE_KEY: '',
    ...env,
  });

describe('attack: worker start (D1)', () => {
  it('a token store without its own key: exit 2 naming SELLING_KIT_TOKEN_STORE_KEY, no key minted', async () => {
    const exit = await runWorkerMain({ SELLING_KIT_TOKEN_STORE: join(dir, 'tokens.sealed') });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^no token-store key: set SELLING_KIT_TOKEN_STORE_KEY/m);
    expect(exit.stderr).not.toMatch(/SELLING_KIT_CODEC=0/);
    expect(exit.stdout).not.toContain('worker ready');
    expect(existsSync(join(dir, 'token-store.key'))).toBe(false);
  }, 120_000);

  it('a bad SELLING_KIT_CLIENT_AUTH: exit 2 naming it', async () => {
    const exit = await runWorkerMain({ SELLING_KIT_CLIENT_AUTH: 'off' });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/SELLING_KIT_CLIENT_AUTH is "on" \(the default\) or "migrate", not "off"/);
  }, 120_000);

  it('SELLING_KIT_CODEC=0: the worker runs, after a loud warning', async () => {
    const exit = await runWorkerMain({ SELLING_KIT_CODEC: '0' });
    expect(exit.stdout).toContain('worker ready');
    expect(exit.stderr).toMatch(
      /WARNING: payload encryption is OFF \(SELLING_KIT_CODEC=0\): this worker runs any job/,
    );
  }, 120_000);
});
