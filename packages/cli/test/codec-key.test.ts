// The codec key on the CLI side (R13): a client or a worker without a key fails with a clear error and
// mints nothing (a key made here would start jobs the real worker cannot read); a malformed key is
// named, never shown. Only `selling-kit dev` creates <home>/codec.key (see dev.test.ts).
// @needs temporal
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, runCli } from './helpers.ts';

describe('codec key', () => {
  it('jobs commands without a key: exit 2, codec_key_missing, no key file created', async () => {
    const ctx = cliEnv({ SELLING_KIT_CODEC_KEY: '' });
    const r = await runCli(ctx, ['--json', 'jobs', 'status', 'no-such-job'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('codec_key_missing');
    expect(r.json.error.message).toMatch(/SELLING_KIT_CODEC_KEY/);
    expect(existsSync(join(ctx.home, 'codec.key'))).toBe(false);
  }, 90_000);

  it('`selling-kit worker` without a key: exit 2 before it polls, no key file created', async () => {
    const ctx = cliEnv({ SELLING_KIT_CODEC_KEY: '' });
    const r = await runCli(ctx, ['--json', 'worker'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('codec_key_missing');
    expect(existsSync(join(ctx.home, 'codec.key'))).toBe(false);
  }, 90_000);

  it('a malformed key is refused by name, its text never printed', async () => {
    const bad = 'not-a-key-0123456789';
    const ctx = cliEnv({ SELLING_KIT_CODEC_KEY: `k1:${bad}` });
    const r = await runCli(ctx, ['--json', 'jobs', 'status', 'no-such-job'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('bad_codec_key');
    expect(r.json.error.message).toContain('"k1"');
    expect(r.stdout + r.stderr).not.toContain(bad);
  }, 90_000);

  it('with encryption off (SELLING_KIT_CODEC=0) no key is needed', async () => {
    const ctx = cliEnv({ SELLING_KIT_CODEC_KEY: '', SELLING_KIT_CODEC: '0' });
    const r = await runCli(ctx, ['--json', 'jobs', 'status', 'no-such-job'], { timeoutMs: 60_000 });
    expect(r.json?.error?.code).not.toMatch(/codec_key/);
    expect(r.code).not.toBe(2);
  }, 90_000);
});
