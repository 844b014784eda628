// Attack (L3): the simulator's admin surface resets the world, mints OAuth tokens and reads every
// seller's state. Bound to a non-loopback address (compose's 0.0.0.0) without a token, any container
// or host on the network could drive it; a token on argv is readable by every local user (`ps`). So:
// a non-loopback bind needs a token (the CLI generates one into a 0600 file when none is given), the
// token comes from SELLING_KIT_SIMULATOR_ADMIN_TOKEN or --admin-token-file only, and it is compared in
// constant time.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN_ENV } from '../../src/admin.ts';
import { startSimulator } from '../../src/index.ts';
import { call } from '../helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** This machine's first non-loopback IPv4 address (where a network neighbour reaches a 0.0.0.0 bind). */
const externalAddress = () =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

interface Cli {
  output: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Resolves with stdout once `text` appears in it. */
  waitFor(text: string): Promise<string>;
  stop(): void;
}

function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Cli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, [ADMIN_TOKEN_ENV]: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: (s: string) => void }[] = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of waiters) if (stdout.includes(w.text)) w.resolve(stdout);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const output = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    output,
    waitFor: (text) =>
      Promise.race([
        new Promise<string>((resolve) => waiters.push({ text, resolve })),
        output.then((o) => {
          throw new Error(`the simulator exited (${o.code}) before printing "${text}": ${o.stderr}`);
        }),
      ]),
    stop: () => child.kill('SIGTERM'),
  };
}

describe('attack: the simulator admin surface', () => {
  it('a programmatic start on a non-loopback address without a token is refused, nothing listens', async () => {
    await expect(startSimulator({ host: '0.0.0.0', port: 0, adminPort: 0 })).rejects.toThrow(
      `the simulator's admin surface on 0.0.0.0 needs an admin token: set ${ADMIN_TOKEN_ENV} or pass --admin-token-file`,
    );
  });

  it('a token on argv is refused and never echoed', async () => {
    const r = await runCli(['--port', '0', '--admin-token', 's3cr3t-token-on-argv']).output;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `--admin-token is refused (argv is visible to every local user): set ${ADMIN_TOKEN_ENV} or pass --admin-token-file <file>`,
    );
    expect(r.stdout + r.stderr).not.toContain('s3cr3t-token-on-argv');
  });

  it('bound to 0.0.0.0 with no token, a token is generated into a 0600 file; a neighbour without it gets 401 and changes nothing', async () => {
    const address = externalAddress();
    if (!address) throw new Error('this test needs a non-loopback IPv4 interface');
    const cli = runCli(['--host', '0.0.0.0', '--port', '0', '--demo']);
    try {
      const stdout = await cli.waitFor('Demo listings');
      const tokenFile = /Admin token: generated, in (\S+)/.exec(stdout)?.[1];
      expect(tokenFile).toBeDefined();
      expect(statSync(tokenFile!).mode & 0o777).toBe(0o600);
      const token = readFileSync(tokenFile!, 'utf8').trim();
      expect(stdout).not.toContain(token);
      const adminPort = new URL(/Admin:\s+(\S+)/.exec(stdout)![1]!).port;
      const admin = `http://${address}:${adminPort}`;
      const before = await call(admin, 'GET', '/admin/state', undefined, { token });
      expect(before.status).toBe(200);
      // The sellers and their listing counts: what a reset would wipe.
      const listings = JSON.stringify(before.body.sellers);
      expect(before.body.sellers.length).toBeGreaterThan(0);

      const none = await call(admin, 'POST', '/admin/reset', { empty: true });
      const wrongShort = await call(admin, 'POST', '/admin/reset', { empty: true }, { token: 'x' });
      const wrongSameLength = await call(
        admin,
        'POST',
        '/admin/reset',
        { empty: true },
        { token: token.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')) },
      );
      for (const r of [none, wrongShort, wrongSameLength]) {
        expect(r.status).toBe(401);
        expect(r.body.errors[0].code).toBe('unauthorized');
      }
      const after = await call(admin, 'GET', '/admin/state', undefined, { token });
      expect(JSON.stringify(after.body.sellers)).toBe(listings);
    } finally {
      cli.stop();
      await cli.output;
    }
  }, 60_000);

  it('the token is read from the environment or a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-admin-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'file-token-0123456789abcdef\n', { mode: 0o600 });
    for (const [args, env, token] of [
      [['--admin-token-file', file], {}, 'file-token-0123456789abcdef'],
      [[], { [ADMIN_TOKEN_ENV]: 'env-token-0123456789abcdef' }, 'env-token-0123456789abcdef'],
    ] as const) {
      const cli = runCli(['--port', '0', ...args], env);
      try {
        const stdout = await cli.waitFor('Admin:');
        const admin = /Admin:\s+(\S+)/.exec(stdout)![1]!;
        expect((await call(admin, 'GET', '/admin/health')).status).toBe(401);
        expect((await call(admin, 'GET', '/admin/health', undefined, { token })).status).toBe(200);
      } finally {
        cli.stop();
        await cli.output;
      }
    }
  }, 60_000);
});
