// Attack (L8): the dev n8n inherited the CLI's whole environment — the codec key, TEMPORAL_API_KEY, the
// webhook secret, database URLs, cloud credentials — where any workflow's Code node (or a community
// node) could read them from its process. Now n8n gets an allow-list: the system basics and its own
// recipe. The test runs spawnN8n (what `dev` runs) on a stand-in n8n that records its environment.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnN8n } from '../../src/n8n/process.ts';

/** A stand-in `n8n` (its bin and the bcryptjs next to it) that writes its environment and exits. */
function fakeN8n(): { bin: string; envFile: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sk-fake-n8n-'));
  mkdirSync(join(dir, 'node_modules', 'bcryptjs'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules', 'bcryptjs', 'index.js'),
    'exports.hashSync = (p) => "$2b$10$fake" + p.length;\n',
  );
  const envFile = join(dir, 'env.json');
  const bin = join(dir, 'n8n.cjs');
  writeFileSync(
    bin,
    `require('fs').writeFileSync(${JSON.stringify(envFile)}, JSON.stringify(process.env));\n`,
  );
  return { bin, envFile, dir };
}

describe('attack: reading the CLI secrets from inside the dev n8n', () => {
  it('n8n gets the allow-listed environment only', async () => {
    const { bin, envFile, dir } = fakeN8n();
    const secrets = {
      SELLING_KIT_CODEC_KEY: 'codec-key-secret',
      SELLING_KIT_CLIENT_KEY: 'skc1.client-secret',
      SELLING_KIT_TOKEN_STORE_KEY: 'token-store-secret',
      TEMPORAL_API_KEY: 'temporal-api-key-secret',
      SELLING_KIT_WEBHOOK_SECRET: 'whsec_secret',
      SELLING_KIT_JOB_STORE: 'postgres://u:pw-secret@db/jobs',
      DATABASE_URL: 'postgres://u:pw-secret@db/x',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      GITHUB_TOKEN: 'ghp_secret',
    };
    const n8n = await spawnN8n({
      bin,
      userFolder: join(dir, 'user'),
      port: 0,
      logFile: join(dir, 'n8n.log'),
      owner: { email: 'dev@example.test', password: 'pw' },
      readyTimeoutMs: 30_000,
      baseEnv: { PATH: process.env.PATH, HOME: '/home/dev', LANG: 'C.UTF-8', TZ: 'UTC', ...secrets },
    });
    // The stand-in exits at once: n8n "exited during its start".
    await expect(n8n.ready).rejects.toThrow('exited during its start');
    await n8n.stop();
    const seen = JSON.parse(readFileSync(envFile, 'utf8')) as Record<string, string>;
    for (const name of Object.keys(secrets)) expect(seen[name]).toBeUndefined();
    expect(JSON.stringify(seen)).not.toMatch(/secret/);
    // What n8n does need is there: the basics and its recipe.
    expect(seen).toMatchObject({ PATH: process.env.PATH, HOME: '/home/dev', LANG: 'C.UTF-8', TZ: 'UTC' });
    expect(seen.N8N_LISTEN_ADDRESS).toBe('127.0.0.1');
    expect(seen.N8N_BLOCK_ENV_ACCESS_IN_NODE).toBe('true');
  }, 60_000);
});
