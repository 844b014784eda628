// The configuration values of the compose topology, read from deploy/env/*.env — the files
// docker-compose.yml passes to its services (env_file) — so the native harness runs with compose's
// values. The harness may change only what differs between a container and this machine: addresses,
// ports and container paths (NATIVE_OVERRIDES, checked by test/compose.test.ts); secrets and extra
// ports, which compose does not keep in these files, come as `extra` and may not shadow a file's key.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const DEPLOY_ENV_DIR = join(REPO_ROOT, 'deploy/env');

export type DeployEnvFile =
  | 'postgresql.env'
  | 'temporal-persistence.env'
  | 'temporal-server.env'
  | 'temporal-server-tls.env'
  | 'temporal-client.env'
  | 'temporal-client-tls.env'
  | 'worker.env'
  | 'n8n.env';

/**
 * Keys the native harness replaces, per file: where compose has a host name, a port, a container path or a
 * database URL on a compose service.
 */
export const NATIVE_OVERRIDES: Record<DeployEnvFile, readonly string[]> = {
  'postgresql.env': [],
  'temporal-persistence.env': ['POSTGRES_SEEDS', 'DB_PORT'],
  'temporal-server.env': [
    'BIND_ON_IP',
    'DYNAMIC_CONFIG_FILE_PATH',
    'FRONTEND_GRPC_PORT',
    'PROMETHEUS_ENDPOINT',
  ],
  'temporal-server-tls.env': [
    'TEMPORAL_TLS_FRONTEND_CERT',
    'TEMPORAL_TLS_FRONTEND_KEY',
    'TEMPORAL_TLS_CLIENT1_CA_CERT',
    'TEMPORAL_TLS_CLIENT2_CA_CERT',
    'TEMPORAL_TLS_SERVER_CERT',
    'TEMPORAL_TLS_SERVER_KEY',
    'TEMPORAL_TLS_SERVER_CA_CERT',
  ],
  'temporal-client.env': ['TEMPORAL_ADDRESS'],
  'temporal-client-tls.env': [
    'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    'TEMPORAL_TLS_CLIENT_CERT_PATH',
    'TEMPORAL_TLS_CLIENT_KEY_PATH',
  ],
  'worker.env': [
    'SELLING_KIT_CREDENTIALS',
    'SELLING_KIT_CLIENT_KEYS',
    'SELLING_KIT_TOKEN_STORE',
    'SELLING_KIT_JOB_STORE',
    'SELLING_KIT_KEY_FILE',
  ],
  'n8n.env': [
    'DB_POSTGRESDB_HOST',
    'DB_POSTGRESDB_PORT',
    'N8N_PORT',
    'N8N_RESTRICT_FILE_ACCESS_TO',
    'NODES_EXCLUDE_FILE',
  ],
};

/**
 * The strict subset of the env-file format that compose, this parser and a shell (`set -a; . file`) read
 * alike: `KEY=value` with no quotes, spaces or shell characters, comments and blank lines on their own lines.
 */
export function parseEnvFile(text: string, name = 'env file'): Record<string, string> {
  const values: Record<string, string> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (!line.trim() || line.startsWith('#')) return;
    const m = /^([A-Z][A-Z0-9_]*)=([^'"#$\s\\`;&|<>()]*)$/.exec(line);
    if (!m)
      throw new Error(
        `${name}:${i + 1}: not KEY=value (unquoted; no spaces, "#", "$" or other shell characters): ${line}`,
      );
    if (m[1]! in values) throw new Error(`${name}:${i + 1}: ${m[1]} is set twice`);
    values[m[1]!] = m[2]!;
  });
  return values;
}

export const readDeployEnv = (file: DeployEnvFile): Record<string, string> =>
  parseEnvFile(readFileSync(join(DEPLOY_ENV_DIR, file), 'utf8'), `deploy/env/${file}`);

/**
 * The environment a native process gets: the files' values (later files win, as compose's env_file
 * list), with `overrides` (only keys NATIVE_OVERRIDES allows for one of the files) and `extra` (keys no
 * file sets: secrets, ports compose leaves at the template's defaults, paths of native tools).
 */
export function nativeEnv(
  files: readonly DeployEnvFile[],
  overrides: Record<string, string> = {},
  extra: Record<string, string> = {},
): Record<string, string> {
  const values = Object.assign({}, ...files.map(readDeployEnv)) as Record<string, string>;
  for (const key of Object.keys(overrides)) {
    if (!files.some((f) => NATIVE_OVERRIDES[f].includes(key)))
      throw new Error(
        `the native harness may not change ${key} (not in NATIVE_OVERRIDES of ${files.join(', ')})`,
      );
    if (!(key in values)) throw new Error(`${key} is not set in ${files.join(', ')}: renamed?`);
  }
  for (const key of Object.keys(extra))
    if (key in values) throw new Error(`${key} is set in ${files.join(', ')}: change it through overrides`);
  return { ...values, ...overrides, ...extra };
}
