// The connection loader (connection-config.ts): Temporal's environment configuration (a temporal.toml
// profile, TEMPORAL_* variables) under the caller's flags, where each value came from, and errors that
// name the setting without quoting a key.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConnectionConfigError,
  connectOptions,
  describeConnection,
  explainConnectError,
  loadConnectionConfig,
} from '../src/client/connection-config.ts';
import { makeTestCerts, tomlTlsTable, type TestCerts } from './topology/tls-certs.ts';

let certs: TestCerts;
let dir: string;
let toml: string;

beforeAll(async () => {
  certs = await makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), 'sk-conn-'));
  toml = join(dir, 'temporal.toml');
  writeFileSync(
    toml,
    [
      '[profile.default]',
      'address = "from-profile:7233"',
      'namespace = "profile-ns"',
      '[profile.cloud]',
      'address = "ns.acct.tmprl.cloud:7233"',
      'namespace = "ns.acct"',
      'api_key = "profile-api-key"',
      '[profile.mtls]',
      'address = "127.0.0.1:7233"',
      ...tomlTlsTable('mtls', certs),
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  for (const d of [dir, certs?.dir]) if (d) rmSync(d, { recursive: true, force: true });
});

const error = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e as ConnectionConfigError;
  }
  throw new Error('no error');
};

describe('loadConnectionConfig', () => {
  it('defaults to the local dev server, plain', () => {
    const c = loadConnectionConfig({}, { env: { TEMPORAL_CONFIG_FILE: join(dir, 'none.toml') } });
    expect(c).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', tls: undefined });
    expect(c.from).toEqual({ address: 'default', namespace: 'default' });
  });

  it('reads the profile, the environment over it, and flags over both', () => {
    const env = { TEMPORAL_CONFIG_FILE: toml };
    expect(loadConnectionConfig({}, { env })).toMatchObject({
      address: 'from-profile:7233',
      namespace: 'profile-ns',
      from: { address: `${toml} [profile.default] address` },
    });
    const withEnv = { ...env, TEMPORAL_ADDRESS: 'from-env:7233' };
    expect(loadConnectionConfig({}, { env: withEnv })).toMatchObject({
      address: 'from-env:7233',
      namespace: 'profile-ns',
      from: { address: 'TEMPORAL_ADDRESS' },
    });
    const flagged = loadConnectionConfig(
      { address: 'from-flag:7233', namespace: 'flag-ns' },
      { env: withEnv, names: { address: '--temporal', namespace: '--namespace' } },
    );
    expect(flagged).toMatchObject({
      address: 'from-flag:7233',
      namespace: 'flag-ns',
      from: { address: '--temporal', namespace: '--namespace' },
    });
  });

  it('a Cloud profile: API key turns TLS on; the key is sent, never described', () => {
    const c = loadConnectionConfig({}, { env: { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'cloud' } });
    expect(connectOptions(c)).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      tls: { serverNameOverride: undefined, serverRootCACertificate: undefined, clientCertPair: undefined },
      apiKey: 'profile-api-key',
    });
    expect(c.from.apiKey).toBe(`${toml} [profile.cloud] api_key`);
    expect(describeConnection(c)).toBe('ns.acct.tmprl.cloud:7233 (namespace ns.acct, TLS, API key)');
    expect(describeConnection(c)).not.toContain('profile-api-key');
  });

  it('mTLS from the profile, each file replaced by its variable, then its flag', () => {
    const env = { TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'mtls' };
    const c = loadConnectionConfig({}, { env });
    const tls = c.tls as { serverRootCACertificate: Uint8Array; clientCertPair: { crt: Uint8Array } };
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe(readFileSync(certs.caCert, 'utf8'));
    expect(Buffer.from(tls.clientCertPair.crt).toString()).toBe(readFileSync(certs.clientCert, 'utf8'));
    expect(c.from.serverCa).toBe(`${toml} [profile.mtls] server_ca_cert_path`);
    expect(describeConnection(c)).toContain('mTLS');

    const other = { ...env, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.otherCaCert };
    expect(loadConnectionConfig({}, { env: other }).from.serverCa).toBe('TEMPORAL_TLS_SERVER_CA_CERT_PATH');
    const flagged = loadConnectionConfig(
      { tlsCaPath: certs.caCert },
      { env: other, names: { tlsCaPath: '--tls-ca' } },
    );
    expect(flagged.from.serverCa).toBe('--tls-ca');
    expect(
      Buffer.from(
        (flagged.tls as { serverRootCACertificate: Uint8Array }).serverRootCACertificate,
      ).toString(),
    ).toBe(readFileSync(certs.caCert, 'utf8'));
  });

  it('TEMPORAL_TLS=false turns TLS off even with an API key; TEMPORAL_TLS=true turns it on with no file', () => {
    const env = { TEMPORAL_CONFIG_FILE: join(dir, 'none.toml'), TEMPORAL_API_KEY: 'k' };
    expect(loadConnectionConfig({}, { env: { ...env, TEMPORAL_TLS: 'false' } }).tls).toBe(false);
    expect(loadConnectionConfig({}, { env: { TEMPORAL_TLS: 'true' } }).tls).toEqual({
      serverNameOverride: undefined,
      serverRootCACertificate: undefined,
      clientCertPair: undefined,
    });
  });

  it('names the setting of a missing file, a file that is not PEM, and half an mTLS pair; never quotes a key', () => {
    const missing = error(() =>
      loadConnectionConfig({}, { env: { TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'nope.pem') } }),
    );
    expect(missing).toBeInstanceOf(ConnectionConfigError);
    expect(missing.message).toBe(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read ${join(dir, 'nope.pem')} (ENOENT)`,
    );

    const keyAsCert = error(() =>
      loadConnectionConfig(
        { tlsCertPath: certs.clientKey, tlsKeyPath: certs.clientKey },
        { names: { tlsCertPath: '--tls-cert' } },
      ),
    );
    expect(keyAsCert.message).toBe(`--tls-cert: ${certs.clientKey} is not a PEM certificate`);
    expect(keyAsCert.message).not.toMatch(/BEGIN|PRIVATE/);

    const inline = error(() =>
      loadConnectionConfig(
        {},
        {
          env: {
            TEMPORAL_TLS_CLIENT_KEY_DATA: 'secret-not-a-key',
            TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
          },
        },
      ),
    );
    expect(inline.message).toBe('TEMPORAL_TLS_CLIENT_KEY_DATA: the inline value is not a PEM private key');
    expect(inline.message).not.toContain('secret-not-a-key');

    const half = error(() =>
      loadConnectionConfig({}, { env: { TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert } }),
    );
    expect(half.message).toMatch(
      /^TEMPORAL_TLS_CLIENT_KEY_PATH: mTLS needs a client certificate and its key/,
    );

    const profile = error(() =>
      loadConnectionConfig(
        { profile: 'nope' },
        { env: { TEMPORAL_CONFIG_FILE: toml }, names: { profile: '--temporal-profile' } },
      ),
    );
    expect(profile.message).toMatch(/^--temporal-profile: Profile 'nope' not found/);
  });

  it('`tls: false` reads no TLS file (commands that never connect are not stopped by one)', () => {
    const env = { TEMPORAL_ADDRESS: 'x:1', TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'nope.pem') };
    const c = loadConnectionConfig({}, { env, tls: false });
    expect({ address: c.address, tls: c.tls }).toEqual({ address: 'x:1', tls: undefined });
  });
});

describe('explainConnectError', () => {
  it('a refused port is unreachable, and an API key in the SDK message is blanked', async () => {
    const c = loadConnectionConfig(
      {},
      { env: { TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_API_KEY: 'sk-secret', TEMPORAL_TLS: 'false' } },
    );
    const message = await explainConnectError(c, new Error('ECONNREFUSED while sending sk-secret'));
    expect(message).toBe('Temporal at 127.0.0.1:1 is unreachable (ECONNREFUSED while sending <api key>)');
  });
});
