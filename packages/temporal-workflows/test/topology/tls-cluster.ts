// The §1 Temporal cluster (temporal-cluster.ts: the full server on PostgreSQL, compose's configuration)
// with TLS and mTLS on, as compose runs it: the server gets deploy/env/temporal-server-tls.env (the image
// template's TLS variables: frontend certificate, TEMPORAL_TLS_REQUIRE_CLIENT_AUTH, the client CA, and the
// internode ones, since the server's own system worker dials its frontend with the internode
// certificate), the harness's `temporal` CLI (health checks, the namespace set-up) the client variables of
// deploy/env/temporal-client-tls.env; only the files' paths change. Both through small wrapper scripts the
// harness runs in place of the binaries (it takes their paths from SELLING_KIT_TEMPORAL_SERVER_BIN and
// TEMPORAL_CLI_PATH): what compose would do by adding the variables to the services' env files.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { nativeEnv, REPO_ROOT } from './deploy-env.ts';
import { startTemporalCluster, type TemporalCluster } from './temporal-cluster.ts';
import type { TestCerts } from './tls-certs.ts';

const SERVER_VERSION = /SELLING_KIT_TEMPORAL_SERVER_VERSION:-([\d.]+)/.exec(
  readFileSync(join(REPO_ROOT, 'scripts/setup-temporal-server.sh'), 'utf8'),
)?.[1];

/**
 * The frontend's TLS, as the server image's config template reads it: compose's
 * deploy/env/temporal-server-tls.env with this run's files in place of the container paths.
 */
export function serverTlsEnv(certs: TestCerts): Record<string, string> {
  return nativeEnv(['temporal-server-tls.env'], {
    TEMPORAL_TLS_FRONTEND_CERT: certs.serverCert,
    TEMPORAL_TLS_FRONTEND_KEY: certs.serverKey,
    TEMPORAL_TLS_CLIENT1_CA_CERT: certs.caCert,
    TEMPORAL_TLS_CLIENT2_CA_CERT: certs.caCert,
    TEMPORAL_TLS_SERVER_CERT: certs.serverCert,
    TEMPORAL_TLS_SERVER_KEY: certs.serverKey,
    TEMPORAL_TLS_SERVER_CA_CERT: certs.caCert,
  });
}

/**
 * What a client with mTLS sets (Temporal's environment configuration): compose's
 * deploy/env/temporal-client-tls.env with this run's files (the server name `temporal` is one of the
 * certificate's SANs, so it holds for 127.0.0.1 too).
 */
export function clientTlsEnv(certs: TestCerts): Record<string, string> {
  return nativeEnv(['temporal-client-tls.env'], {
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
    TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
  });
}

const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

function wrapper(path: string, target: string, env: Record<string, string>): string {
  const exports = Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`);
  writeFileSync(path, ['#!/bin/sh', ...exports, `exec ${quote(target)} "$@"`, ''].join('\n'));
  chmodSync(path, 0o755);
  return path;
}

export async function startTlsCluster(certs: TestCerts): Promise<TemporalCluster> {
  const cache = process.env.SELLING_KIT_CACHE ?? join(homedir(), '.cache/selling-kit');
  const server =
    process.env.SELLING_KIT_TEMPORAL_SERVER_BIN || join(cache, `temporal-server-${SERVER_VERSION}/server`);
  const cli = process.env.TEMPORAL_CLI_PATH;
  if (!existsSync(server) || !cli)
    throw new Error('the Temporal server or CLI is missing: run scripts/setup-temporal-server.sh');
  const saved = {
    SELLING_KIT_TEMPORAL_SERVER_BIN: process.env.SELLING_KIT_TEMPORAL_SERVER_BIN,
    TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
  };
  process.env.SELLING_KIT_TEMPORAL_SERVER_BIN = wrapper(
    join(certs.dir, 'temporal-server'),
    server,
    serverTlsEnv(certs),
  );
  process.env.TEMPORAL_CLI_PATH = wrapper(join(certs.dir, 'temporal'), cli, clientTlsEnv(certs));
  try {
    return await startTemporalCluster();
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
}
