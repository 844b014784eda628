// Connect anywhere: the §1 Temporal server (full server on PostgreSQL) with TLS and mTLS on its
// frontend (tls-cluster.ts), certificates made by the test (tls-certs.ts). Clients configured the way
// Temporal's own tools are (@temporalio/envconfig, connection-config.ts): a `selling-kit worker` with
// TEMPORAL_TLS_* variables and `selling-kit bulk` with a temporal.toml profile complete a job; the worker
// entry point (worker-main) connects the same way; flags win over the profile and the environment; a
// wrong CA, a missing client certificate or TLS left off fail with a message naming the setting, and no
// message carries key material or the API key.
// @needs topology
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { REPO_ROOT } from './deploy-env.ts';
import {
  runNode,
  sellerWithKey,
  startNode,
  workerServiceEnv,
  writeTopologyFeed,
  type Ran,
} from './native-run.ts';
import type { TemporalCluster } from './temporal-cluster.ts';
import { makeTestCerts, tomlTlsTable, type TestCerts } from './tls-certs.ts';
import { clientTlsEnv, startTlsCluster } from './tls-cluster.ts';

const CLI = join(REPO_ROOT, 'packages/cli/src/main.ts');
const WORKER_MAIN = join(REPO_ROOT, 'packages/temporal-workflows/src/worker/worker-main.ts');
const SHOP = 'shop-tls';
const ITEMS = 5;

let certs: TestCerts;
let cluster: TemporalCluster;
let sim: RunningSimulator;
let dir: string;
/** The worker service's environment (compose's files) without any TLS setting. */
let base: Record<string, string>;
let seller: ReturnType<typeof sellerWithKey>['seller'];
const children: ChildProcess[] = [];

beforeAll(async () => {
  certs = await makeTestCerts();
  [cluster, sim] = await Promise.all([
    startTlsCluster(certs),
    startSimulator({ port: 0, config: { fetchPictures: false } }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'sk-tls-run-'));
  base = workerServiceEnv(dir, cluster.address, join(dir, 'tokens.sealed'));
  ({ seller } = sellerWithKey(
    sim,
    { username: `tls-${randomUUID().slice(0, 6)}`, partnerId: 'partner-tls' },
    SHOP,
    base.SELLING_KIT_CREDENTIALS!,
  ));
}, 240_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sim?.close();
  await cluster?.stop();
  for (const d of [dir, certs?.dir]) if (d) rmSync(d, { recursive: true, force: true });
}, 60_000);

/** A process with PATH and HOME (the run's folder) from this one, and `env`; no TEMPORAL_* leaks in. */
const exec = (argv: string[], env: Record<string, string>, timeoutMs?: number) =>
  runNode(argv, { env, home: dir }, timeoutMs);
const cli = (args: string[], env: Record<string, string>, timeoutMs?: number) =>
  exec([CLI, ...args], env, timeoutMs);
/** A long-running process, resolved once `ready` is in its output (stdout + stderr). */
const startProcess = (argv: string[], env: Record<string, string>, ready: string) =>
  startNode(argv, { env, home: dir }, ready, children);

const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

const PEM_BODY = /-----BEGIN|PRIVATE KEY/;
/** The key files' base64 bodies: none may appear in any message. */
const keyBodies = () =>
  [certs.clientKey, certs.serverKey].map((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join(''),
  );
const leaksKey = (text: string) =>
  PEM_BODY.test(text) || keyBodies().some((b) => text.replace(/\s/g, '').includes(b.slice(0, 24)));

describe('Temporal with TLS and mTLS (the full server of the compose topology)', () => {
  it('a `selling-kit worker` (TEMPORAL_TLS_* variables) and `selling-kit bulk` (a temporal.toml profile) complete a job over mTLS', async () => {
    const worker = await startProcess(
      [CLI, 'worker'],
      { ...base, ...clientTlsEnv(certs) },
      'Ctrl-C stops it',
    );
    expect(worker.output()).toContain(`worker on ${cluster.address} (namespace default, mTLS)`);

    // The CLI with nothing but a profile of Temporal's config file: address, namespace and TLS files.
    const toml = join(dir, 'temporal.toml');
    writeFileSync(
      toml,
      [
        '[profile.tls-test]',
        `address = "${cluster.address}"`,
        'namespace = "default"',
        ...tomlTlsTable('tls-test', certs),
        '',
      ].join('\n'),
    );
    const { TEMPORAL_ADDRESS: _a, TEMPORAL_NAMESPACE: _n, ...withoutTemporal } = base;
    const profileEnv = { ...withoutTemporal, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'tls-test' };

    const prefix = `TLS-${randomUUID().slice(0, 6)}`;
    const { feed, skus } = writeTopologyFeed(dir, prefix, ITEMS);
    const jobId = `tls-${randomUUID().slice(0, 8)}`;
    const started = await cli(
      ['--json', 'bulk', feed, '--shop', SHOP, '--op', 'create', '--job-id', jobId, '--detach'],
      profileEnv,
    );
    expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const watched = await cli(['--json', 'jobs', 'watch', jobId], profileEnv, 120_000);
    expect(JSON.parse(watched.stdout)).toMatchObject({
      state: 'finished',
      total: ITEMS,
      ok: ITEMS,
      failed: 0,
    });
    const listed = [...seller.products.values()].map((p) => p.sku ?? '').filter((s) => s.startsWith(prefix));
    expect(listed.sort()).toEqual([...skus].sort());
    expect(
      leaksKey(started.stdout + started.stderr + watched.stdout + watched.stderr + worker.output()),
    ).toBe(false);
    await stop(worker.child);
  }, 240_000);

  it('the worker entry point (worker-main) connects with the same variables', async () => {
    const worker = await startProcess([WORKER_MAIN], { ...base, ...clientTlsEnv(certs) }, 'worker ready');
    expect(worker.output()).toContain(`worker ready on ${cluster.address} (namespace default, mTLS)`);
    await stop(worker.child);
  }, 120_000);

  it('flags win over the environment and the profile: --temporal, --namespace, --tls-ca', async () => {
    const wrong = {
      ...base,
      ...clientTlsEnv(certs),
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      TEMPORAL_NAMESPACE: 'no-such-namespace',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
    };
    // The environment alone: refused (the wrong CA is tried first only when the address is right).
    const refused = await cli(['--json', 'jobs', 'list'], wrong);
    expect(refused.code).not.toBe(0);
    const flags = ['--temporal', cluster.address, '--namespace', 'default'];
    const worker = await startProcess(
      [CLI, ...flags, 'worker', '--tls-ca', certs.caCert],
      wrong,
      'Ctrl-C stops it',
    );
    expect(worker.output()).toContain(`worker on ${cluster.address} (namespace default, mTLS)`);
    await stop(worker.child);
    // The same flags with the CA of the environment (the wrong one): its name is in the error.
    const wrongCa = await cli(['--json', ...flags, 'jobs', 'list'], wrong);
    expect(wrongCa.code).toBe(5);
    expect((JSON.parse(wrongCa.stdout) as { error: { message: string } }).error.message).toMatch(
      /not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH/,
    );
  }, 120_000);

  it('a wrong CA, a missing client certificate and TLS left off each fail naming the setting, without key material', async () => {
    const env = { ...base, ...clientTlsEnv(certs) };
    const message = (r: Ran) => {
      const doc = JSON.parse(r.stdout.trim()) as { error: { code: string; message: string } };
      return doc.error;
    };

    const wrongCa = await cli(['--json', 'jobs', 'list'], {
      ...env,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
    });
    expect(message(wrongCa)).toMatchObject({
      code: 'temporal_unreachable',
      message: expect.stringMatching(/not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH/),
    });

    const flagCa = await exec([CLI, 'worker', '--tls-ca', certs.otherCaCert], env);
    expect(flagCa.code).toBe(5);
    expect(flagCa.stderr).toMatch(/not signed by the CA of --tls-ca/);

    const { TEMPORAL_TLS_CLIENT_CERT_PATH: _c, TEMPORAL_TLS_CLIENT_KEY_PATH: _k, ...noClient } = env;
    const noCert = await cli(['--json', 'jobs', 'list'], noClient);
    expect(message(noCert).message).toMatch(/TEMPORAL_TLS_CLIENT_CERT_PATH/);

    const plain = await cli(['--json', 'jobs', 'list'], base);
    expect(message(plain).message).toMatch(/TEMPORAL_TLS/);

    const missingFile = await cli(['--json', 'jobs', 'list'], {
      ...env,
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'nope.key'),
    });
    expect(message(missingFile)).toMatchObject({
      code: 'bad_temporal_config',
      message: expect.stringMatching(/^TEMPORAL_TLS_CLIENT_KEY_PATH: cannot read .*nope\.key \(ENOENT\)/),
    });

    const keyAsCa = await cli(['--json', 'jobs', 'list'], {
      ...env,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.clientKey,
    });
    expect(message(keyAsCa).message).toMatch(
      /^TEMPORAL_TLS_SERVER_CA_CERT_PATH: .* is not a PEM certificate/,
    );

    const workerMain = await exec([WORKER_MAIN], {
      ...env,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
    });
    expect(workerMain.code).toBe(2);
    expect(workerMain.stderr).toMatch(/not signed by the CA of TEMPORAL_TLS_SERVER_CA_CERT_PATH/);

    // An API key is never echoed, whatever the server answers.
    const secret = `sk-test-${randomUUID()}`;
    const withKey = await cli(['--json', 'jobs', 'list'], {
      ...env,
      TEMPORAL_API_KEY: secret,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert,
    });
    expect(withKey.code).not.toBe(0);

    for (const r of [wrongCa, flagCa, noCert, plain, missingFile, keyAsCa, workerMain, withKey]) {
      expect(leaksKey(r.stdout + r.stderr)).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
  }, 180_000);
});
