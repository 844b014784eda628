// The CLI: `selling-kit-simulator --port 0 --demo` prints its API and admin URLs and the demo API key,
// and the key works at once.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEMO } from '../../src/index.ts';
import { call } from '../helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

function startCli(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; out: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (/Admin:\s+\S+/.test(out) && (!args.includes('--demo') || /Demo listings:/.test(out)))
        resolve({ child, out });
    });
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => reject(new Error(`CLI exited (${code}) before start-up:\n${out}\n${err}`)));
  });
}

function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

test('--demo prints the API URL, admin URL and demo key; the key works against the API', async () => {
  const { child, out } = await startCli(['--port', '0', '--admin-port', '0', '--demo']);
  try {
    const api = /API:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    const admin = /Admin:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    const key = /Demo API key:\s+(\S+)/.exec(out)?.[1];
    expect(api).toBeDefined();
    expect(admin).toBeDefined();
    expect(admin).not.toBe(api);
    expect(key).toBe(DEMO.apiKey);

    const shop = await call(api!, 'GET', '/api/v1/shop/', undefined, { token: key });
    expect(shop.status).toBe(200);
    expect(shop.body).toMatchObject({ id: DEMO.sellerId, username: DEMO.username, country_code: 'GB' });
    const addresses = await call(api!, 'GET', '/api/v1/shop/seller-addresses/', undefined, { token: key });
    expect(addresses.body.data[0]).toMatchObject({ id: DEMO.addressId, country: 'GB' });
    const state = await call(admin!, 'GET', '/admin/state');
    expect(state.status).toBe(200);
    expect(state.body.sellers[0].apiKeys).toContain(DEMO.apiKey);
  } finally {
    expect(await stop(child)).toBe(0);
  }
});

test('--seed with a bad file fails with a clear message and a non-zero exit', async () => {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--seed', '/nonexistent/seed.json'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(1);
  expect(err).toMatch(/selling-kit-simulator: .*seed\.json/);
});

test('bad flags are rejected by the argument parser', async () => {
  const child = spawn(process.execPath, [CLI, '--port', 'abc'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).not.toBe(0);
  expect(err).toMatch(/port must be an integer/);
});
