// Attack: the compose deployment handing more than needed to whoever reaches a container or the host
// (M4 and the compose parts of issue 22 §1, §3). Static checks of docker-compose.yml, the env files and
// .dockerignore (no Docker engine runs in CI; test/compose.test.ts checks the file's consistency): every
// published port on 127.0.0.1; no-new-privileges and cap_drop ALL everywhere (capabilities added back
// only where an image's entrypoint needs them); n8n reaches only PostgreSQL (its own role) and Temporal's
// frontend (the Bulk Job node's HTTP API), with env access, file access and dangerous nodes shut; each
// service uses its own database role, never the superuser; Temporal requires client certificates (mTLS)
// and its clients present theirs; the image's build context is an allow-list (no .env, secrets, keys).
// Each rule answers the problems it finds, and is shown failing on a broken copy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseEnvFile } from '../topology/deploy-env.ts';
import { REPO_ROOT } from '../topology/deploy-env.ts';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

interface Service {
  image?: string;
  ports?: (string | number | { host_ip?: string; published?: string | number; target?: number })[];
  security_opt?: string[];
  cap_drop?: string[];
  cap_add?: string[];
  networks?: string[] | Record<string, unknown>;
  environment?: Record<string, string | number | boolean | null>;
  env_file?: (string | { path: string })[];
  volumes?: string[];
}
interface Compose {
  services: Record<string, Service>;
  networks?: Record<string, { internal?: boolean } | null>;
}
const compose = () => parse(read('docker-compose.yml')) as Compose;

/** A service's environment: its env files, then `environment:` (as compose merges them). */
const envOf = (s: Service): Record<string, string> =>
  Object.assign(
    {},
    ...(s.env_file ?? []).map((f) => parseEnvFile(read(typeof f === 'string' ? f : f.path))),
    Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')])),
  ) as Record<string, string>;

// ---- rules ----

/** Every published port binds 127.0.0.1 (short syntax `127.0.0.1:host:container`, or host_ip). */
export function publishedPortProblems(doc: Compose): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(doc.services))
    for (const p of s.ports ?? []) {
      const ok = typeof p === 'object' ? p.host_ip === '127.0.0.1' : String(p).startsWith('127.0.0.1:');
      if (!ok) problems.push(`${name}: port ${JSON.stringify(p)} is not published on 127.0.0.1 only`);
    }
  return problems;
}

/**
 * Capabilities an image needs back, and why: the postgres image's entrypoint starts as root, takes
 * ownership of the data folder and drops to the `postgres` user (gosu).
 */
export const CAPABILITIES_NEEDED: Record<string, readonly string[]> = {
  postgresql: ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETGID', 'SETUID'],
};

export function privilegeProblems(doc: Compose): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(doc.services)) {
    if (!(s.security_opt ?? []).includes('no-new-privileges:true'))
      problems.push(`${name}: security_opt lacks no-new-privileges:true`);
    if (JSON.stringify(s.cap_drop) !== '["ALL"]') problems.push(`${name}: cap_drop is not [ALL]`);
    const extra = (s.cap_add ?? []).filter((c) => !(CAPABILITIES_NEEDED[name] ?? []).includes(c));
    if (extra.length) problems.push(`${name}: cap_add ${extra.join(', ')} is not needed`);
  }
  return problems;
}

const networksOf = (s: Service) => (Array.isArray(s.networks) ? s.networks : Object.keys(s.networks ?? {}));

/**
 * Network split: every service names its networks (none on compose's default network, which joins all);
 * a network shared by several services is internal (no way out, no published port); n8n shares networks
 * with PostgreSQL (its database) and Temporal (the frontend's HTTP API, which the Bulk Job node calls) only.
 */
export const N8N_REACHES = ['postgresql', 'temporal'];

export function networkProblems(doc: Compose): string[] {
  const problems: string[] = [];
  const members: Record<string, string[]> = {};
  for (const [name, s] of Object.entries(doc.services)) {
    const nets = networksOf(s);
    if (!nets.length) problems.push(`${name}: on the default network (name its networks)`);
    for (const n of nets) (members[n] ??= []).push(name);
  }
  for (const [net, who] of Object.entries(members)) {
    if (!(net in (doc.networks ?? {}))) problems.push(`network ${net} is not declared`);
    else if (who.length > 1 && !doc.networks?.[net]?.internal)
      problems.push(`network ${net} joins ${who.join(', ')} but is not internal`);
  }
  const n8nNets = networksOf(doc.services.n8n ?? {});
  const reached = new Set(
    Object.entries(doc.services)
      .filter(([name, s]) => name !== 'n8n' && networksOf(s).some((n) => n8nNets.includes(n)))
      .map(([name]) => name),
  );
  const extra = [...reached].filter((r) => !N8N_REACHES.includes(r));
  if (extra.length) problems.push(`n8n reaches ${extra.sort().join(', ')}`);
  return problems;
}

/** n8n: no env access from nodes, file access confined, command-running and local-file nodes excluded. */
export const N8N_EXCLUDED_NODES = [
  'n8n-nodes-base.executeCommand',
  'n8n-nodes-base.localFileTrigger',
  'n8n-nodes-base.ssh',
  'n8n-nodes-base.git',
];

export function n8nEnvProblems(doc: Compose): string[] {
  const problems: string[] = [];
  const env = envOf(doc.services.n8n ?? {});
  if (env.N8N_BLOCK_ENV_ACCESS_IN_NODE !== 'true')
    problems.push('n8n: N8N_BLOCK_ENV_ACCESS_IN_NODE is not true');
  if (!env.N8N_RESTRICT_FILE_ACCESS_TO?.startsWith('/'))
    problems.push('n8n: N8N_RESTRICT_FILE_ACCESS_TO is not a folder');
  // NODES_EXCLUDE is a JSON array (quotes: not in the env-file format), so n8n reads it from a file.
  const file = env.NODES_EXCLUDE_FILE;
  const mount = (doc.services.n8n?.volumes ?? []).find((v) => v.split(':')[1] === file);
  if (!file || !mount) problems.push('n8n: NODES_EXCLUDE_FILE is not set to a mounted file');
  else {
    const excluded = JSON.parse(read(mount.split(':')[0]!)) as string[];
    const missing = N8N_EXCLUDED_NODES.filter((n) => !excluded.includes(n));
    if (missing.length) problems.push(`n8n: NODES_EXCLUDE lacks ${missing.join(', ')}`);
  }
  return problems;
}

/**
 * Database roles: the superuser's password reaches the postgresql service alone (its first-start init
 * script, mounted in /docker-entrypoint-initdb.d, creates the roles); Temporal, n8n and the worker each
 * connect as their own role, none the superuser, each with its own password variable.
 */
export function roleProblems(doc: Compose): string[] {
  const problems: string[] = [];
  const s = doc.services;
  const pgEnv = envOf(s.postgresql ?? {});
  const superuser = pgEnv.POSTGRES_USER;
  for (const [name, service] of Object.entries(s))
    if (name !== 'postgresql' && JSON.stringify(service.environment ?? {}).includes('POSTGRES_PASSWORD'))
      problems.push(`${name} gets the superuser's password`);
  if (
    !(s.postgresql?.volumes ?? []).some((v) =>
      /^\.\/deploy\/postgres\/init-roles\.sh:\/docker-entrypoint-initdb\.d\/[^:]+\.sh:ro$/.test(v),
    )
  )
    problems.push('postgresql: deploy/postgres/init-roles.sh is not mounted in /docker-entrypoint-initdb.d');
  const users = {
    'temporal-schema': envOf(s['temporal-schema'] ?? {}).POSTGRES_USER,
    temporal: envOf(s.temporal ?? {}).POSTGRES_USER,
    n8n: envOf(s.n8n ?? {}).DB_POSTGRESDB_USER,
    worker: /^postgres(?:ql)?:\/\/([^:@/]+)@/.exec(envOf(s.worker ?? {}).SELLING_KIT_JOB_STORE ?? '')?.[1],
  };
  for (const [name, user] of Object.entries(users))
    if (!user || user === superuser)
      problems.push(`${name} connects as ${user ?? '(nobody)'}, not its own role`);
  if (users.temporal !== pgEnv.TEMPORAL_DB_USER)
    problems.push('temporal: not the role init-roles.sh makes for it');
  if (users.n8n !== pgEnv.N8N_DB_USER) problems.push('n8n: not the role init-roles.sh makes for it');
  if (users.worker !== pgEnv.SELLING_KIT_DB_USER)
    problems.push('worker: not the role init-roles.sh makes for it');
  // Each service's password is the variable the init script set its role's password from.
  const passwords: Record<string, [unknown, string]> = {
    temporal: [s.temporal?.environment?.POSTGRES_PWD, 'TEMPORAL_DB_PASSWORD'],
    'temporal-schema': [s['temporal-schema']?.environment?.SQL_PASSWORD, 'TEMPORAL_DB_PASSWORD'],
    n8n: [s.n8n?.environment?.DB_POSTGRESDB_PASSWORD, 'N8N_DB_PASSWORD'],
    worker: [s.worker?.environment?.PGPASSWORD, 'SELLING_KIT_DB_PASSWORD'],
  };
  const variable = (v: unknown) => /^\$\{(\w+)/.exec(String(v))?.[1];
  for (const [name, [value, expected]] of Object.entries(passwords))
    if (variable(value) !== expected || variable(s.postgresql?.environment?.[expected]) !== expected)
      problems.push(`${name}: its database password is not ${expected}, the one its role was created with`);
  return problems;
}

/** Temporal's frontend requires a client certificate; its clients in compose present one. */
export function mtlsProblems(doc: Compose): string[] {
  const problems: string[] = [];
  const server = envOf(doc.services.temporal ?? {});
  if (server.TEMPORAL_TLS_REQUIRE_CLIENT_AUTH !== 'true')
    problems.push('temporal: client certificates not required');
  for (const v of ['TEMPORAL_TLS_FRONTEND_CERT', 'TEMPORAL_TLS_FRONTEND_KEY', 'TEMPORAL_TLS_CLIENT1_CA_CERT'])
    if (!server[v]) problems.push(`temporal: ${v} is not set`);
  for (const client of ['worker', 'temporal-namespace']) {
    const env = envOf(doc.services[client] ?? {});
    for (const v of [
      'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'TEMPORAL_TLS_CLIENT_KEY_PATH',
    ])
      if (!env[v]) problems.push(`${client}: ${v} is not set`);
  }
  const ui = envOf(doc.services['temporal-ui'] ?? {});
  for (const v of ['TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY'])
    if (!ui[v]) problems.push(`temporal-ui: ${v} is not set`);
  return problems;
}

// ---- .dockerignore: Docker's rules (last matching pattern wins; `!` re-includes; `*` one segment,
// `**` any number), enough for the patterns this repository uses ----

const globToRegExp = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/^\/+|\/+$/g, '')
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*\/?/g, '\uE000')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')
      .replace(/\uE000/g, '(?:.*/)?')}(?:/.*)?$`,
  );

/** Whether `path` (relative to the context) is sent to the builder under these .dockerignore rules. */
export function inBuildContext(dockerignore: string, path: string): boolean {
  let included = true;
  for (const raw of dockerignore.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    if (globToRegExp(negated ? line.slice(1) : line).test(path)) included = negated;
  }
  return included;
}

/** What must stay out of the image whatever is added to the repository, and what the image needs. */
export const MUST_STAY_OUT = [
  '.env',
  '.git/config',
  'deploy/secrets/credentials.json',
  'deploy/secrets/client-keys.json',
  'deploy/tls/certs/worker/client.key',
  'node_modules/pg/package.json',
  'packages/temporal-workflows/test/helpers.ts',
  'some-new-file-nobody-listed.txt',
];

export function dockerignoreProblems(dockerignore: string, needed: string[]): string[] {
  const problems: string[] = [];
  const first = dockerignore.split('\n').find((l) => l.trim() && !l.trim().startsWith('#'));
  if (first?.trim() !== '*') problems.push('.dockerignore does not start by excluding everything (*)');
  for (const p of MUST_STAY_OUT)
    if (inBuildContext(dockerignore, p)) problems.push(`${p} is in the build context`);
  for (const p of needed)
    if (!inBuildContext(dockerignore, p)) problems.push(`${p} (needed by the image) is left out`);
  return problems;
}

/** The files the Dockerfile copies and runs: every workspace manifest, sources, the health check. */
const NEEDED = [
  'package.json',
  'pnpm-lock.yaml',
  'pnpm-workspace.yaml',
  'packages/api-client/package.json',
  'packages/api-client/src/index.ts',
  'packages/simulator/src/cli.ts',
  'packages/temporal-workflows/src/worker/worker-main.ts',
  'packages/temporal-workflows/src/codec/failure-converter.cjs',
  'packages/temporal-workflows/package.json',
  'packages/n8n-nodes/package.json',
  'deploy/worker-healthcheck.mjs',
];

// ---- the tests ----

describe('compose deployment: refused by construction', () => {
  it('every published port listens on 127.0.0.1 only', () => {
    expect(publishedPortProblems(compose())).toEqual([]);
  });
  it('every service: no-new-privileges, cap_drop ALL, capabilities added back only where needed', () => {
    expect(privilegeProblems(compose())).toEqual([]);
  });
  it("n8n's containers reach only PostgreSQL and Temporal's frontend; shared networks are internal", () => {
    expect(networkProblems(compose())).toEqual([]);
  });
  it('n8n: env access blocked in nodes, file access confined, command and local-file nodes excluded', () => {
    expect(n8nEnvProblems(compose())).toEqual([]);
  });
  it('each service connects as its own database role; only postgresql knows the superuser password', () => {
    expect(roleProblems(compose())).toEqual([]);
  });
  it('Temporal requires client certificates (mTLS) and its clients present theirs', () => {
    expect(mtlsProblems(compose())).toEqual([]);
  });
  it('.dockerignore is an allow-list: secrets, keys, .env, .git and tests stay out; the sources get in', () => {
    expect(dockerignoreProblems(read('.dockerignore'), NEEDED)).toEqual([]);
  });
});

describe('compose deployment: each rule catches the attack it is for', () => {
  it('a port published on every interface, or by host_ip 0.0.0.0', () => {
    const doc = compose();
    doc.services.n8n!.ports = ['5678:5678', { host_ip: '0.0.0.0', published: 5679, target: 5679 }];
    expect(publishedPortProblems(doc)).toEqual([
      'n8n: port "5678:5678" is not published on 127.0.0.1 only',
      'n8n: port {"host_ip":"0.0.0.0","published":5679,"target":5679} is not published on 127.0.0.1 only',
    ]);
  });
  it('privileges: new privileges allowed, capabilities kept, one added back without need', () => {
    const doc = compose();
    doc.services.worker!.security_opt = [];
    delete doc.services.n8n!.cap_drop;
    doc.services.temporal!.cap_add = ['NET_ADMIN'];
    expect(privilegeProblems(doc)).toEqual([
      'temporal: cap_add NET_ADMIN is not needed',
      'worker: security_opt lacks no-new-privileges:true',
      'n8n: cap_drop is not [ALL]',
    ]);
  });
  it('networks: n8n joined to the worker, the simulator on the default network, a shared network not internal', () => {
    const doc = compose();
    doc.services.n8n!.networks = [...networksOf(doc.services.n8n!), ...networksOf(doc.services.worker!)];
    delete doc.services.simulator!.networks;
    const shared = networksOf(doc.services.temporal!).find((n) => doc.networks?.[n]?.internal)!;
    doc.networks![shared] = {};
    const problems = networkProblems(doc);
    expect(problems).toContain('simulator: on the default network (name its networks)');
    expect(problems).toContainEqual(
      expect.stringMatching(new RegExp(`^network ${shared} joins .* but is not internal$`)),
    );
    expect(problems).toContainEqual(expect.stringMatching(/^n8n reaches .*worker/));
  });
  it('n8n: env access open, files anywhere, nodes not excluded', () => {
    const doc = compose();
    doc.services.n8n!.env_file = [];
    doc.services.n8n!.environment = { N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false' };
    expect(n8nEnvProblems(doc)).toEqual([
      'n8n: N8N_BLOCK_ENV_ACCESS_IN_NODE is not true',
      'n8n: N8N_RESTRICT_FILE_ACCESS_TO is not a folder',
      'n8n: NODES_EXCLUDE_FILE is not set to a mounted file',
    ]);
  });
  it('roles: n8n as the superuser with its password, the worker without a role, no init script', () => {
    const doc = compose();
    doc.services.n8n!.environment = {
      ...doc.services.n8n!.environment,
      DB_POSTGRESDB_USER: 'postgres',
      DB_POSTGRESDB_PASSWORD: '${POSTGRES_PASSWORD}',
    };
    doc.services.worker!.env_file = [];
    doc.services.postgresql!.volumes = [];
    expect(roleProblems(doc)).toEqual([
      "n8n gets the superuser's password",
      'postgresql: deploy/postgres/init-roles.sh is not mounted in /docker-entrypoint-initdb.d',
      'n8n connects as postgres, not its own role',
      'worker connects as (nobody), not its own role',
      'n8n: not the role init-roles.sh makes for it',
      'worker: not the role init-roles.sh makes for it',
      'n8n: its database password is not N8N_DB_PASSWORD, the one its role was created with',
    ]);
  });
  it('mTLS: client certificates not required, a client without its certificate', () => {
    const doc = compose();
    doc.services.temporal!.env_file = (doc.services.temporal!.env_file ?? []).filter(
      (f) => !String(f).includes('tls'),
    );
    doc.services.worker!.env_file = (doc.services.worker!.env_file ?? []).filter(
      (f) => !String(f).includes('tls'),
    );
    const problems = mtlsProblems(doc);
    expect(problems).toContain('temporal: client certificates not required');
    expect(problems).toContain('worker: TEMPORAL_TLS_CLIENT_CERT_PATH is not set');
  });
  it('.dockerignore: a deny-list lets a new secret file in; a forgotten source is caught', () => {
    const denyList = 'node_modules\n.git\n.env\ndeploy/secrets\n';
    expect(dockerignoreProblems(denyList, NEEDED)).toEqual([
      '.dockerignore does not start by excluding everything (*)',
      'deploy/tls/certs/worker/client.key is in the build context',
      'packages/temporal-workflows/test/helpers.ts is in the build context',
      'some-new-file-nobody-listed.txt is in the build context',
    ]);
    expect(
      dockerignoreProblems('*\n!package.json\n', ['package.json', 'deploy/worker-healthcheck.mjs']),
    ).toEqual(['deploy/worker-healthcheck.mjs (needed by the image) is left out']);
  });
});
