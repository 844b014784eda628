// Static checks of the root docker-compose.yml (no Docker engine runs in CI): the file must satisfy the
// compose-spec JSON schema (vendored in deploy/compose-spec.json) and stay honest — dependencies,
// health checks, build contexts, mounts, pinned images and the worker's environment agree with the repo.
// One source of values: the services' settings live in deploy/env/*.env, which the native topology test
// (test/topology/) reads too, changing only addresses, ports and paths (NATIVE_OVERRIDES); these checks
// keep those files, compose and the code in agreement.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { SEARCH_ATTRIBUTE_FLAGS } from '../src/search-attributes.ts';
import { SHUTDOWN_FORCE_MARGIN_MS, DEFAULT_SHUTDOWN_GRACE_MS } from '../src/worker/worker-tuning.ts';
import { NATIVE_OVERRIDES, parseEnvFile, type DeployEnvFile } from './topology/deploy-env.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  environment?: string[] | Record<string, string | number | boolean | null>;
  env_file?: string | (string | { path: string })[];
  ports?: (string | number | { target?: number; published?: string | number })[];
  stop_grace_period?: string;
  profiles?: string[];
  command?: string | string[];
}
type Named = 'postgresql' | 'temporal' | 'temporal-ui' | 'worker' | 'n8n' | 'simulator';
interface ComposeFile {
  // The services the tests address by name are required (the structure test checks they exist).
  services: Record<string, Service> & Record<Named, Service>;
  volumes?: Record<string, unknown>;
}

const compose = () => parse(read('docker-compose.yml')) as ComposeFile;

// ---- the rules, as functions returning the problems they find (so each can be shown to fail) ----

function schemaErrors(doc: unknown): string[] {
  const schema = JSON.parse(read('deploy/compose-spec.json')) as Record<string, unknown>;
  // The schema names draft-07 without the trailing '#', and uses formats/keywords Ajv does not know.
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, validateFormats: false });
  const validate = ajv.compile(schema);
  return validate(doc)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

const dependencies = (s: Service): [string, string | undefined][] =>
  Array.isArray(s.depends_on)
    ? s.depends_on.map((d) => [d, undefined])
    : Object.entries(s.depends_on ?? {}).map(([d, v]) => [d, v?.condition]);

function dependencyProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, service] of Object.entries(doc.services)) {
    for (const [target, condition] of dependencies(service)) {
      const dep = doc.services[target];
      if (!dep) problems.push(`${name} depends on missing service ${target}`);
      else if (condition === 'service_healthy' && (!dep.healthcheck?.test || dep.healthcheck.disable))
        problems.push(`${name} waits for ${target} to be healthy, but ${target} has no healthcheck`);
      else if (dep?.profiles?.length && !service.profiles?.length)
        problems.push(`${name} (always on) depends on ${target}, which only runs under a profile`);
    }
  }
  return problems;
}

function buildProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, { build }] of Object.entries(doc.services)) {
    if (build === undefined) continue;
    const context = typeof build === 'string' ? build : (build.context ?? '.');
    const dockerfile = typeof build === 'string' ? 'Dockerfile' : (build.dockerfile ?? 'Dockerfile');
    if (!existsSync(join(root, context))) problems.push(`${name}: build context ${context} does not exist`);
    else if (!existsSync(join(root, context, dockerfile)))
      problems.push(`${name}: ${join(context, dockerfile)} does not exist`);
  }
  return problems;
}

/**
 * Folders deploy/tls/make-certs.sh makes (git-ignored: they hold keys): `server` and one per client of
 * its default CLIENTS list. Mounting one of them is fine although a fresh clone has none.
 */
const GENERATED_CERT_FOLDERS = new Set([
  'server',
  ...(/CLIENTS="\$\{CLIENTS-([\w ]+)\}"/.exec(read('deploy/tls/make-certs.sh'))?.[1]?.split(' ') ?? []),
]);
const generated = (source: string) =>
  source.startsWith('./deploy/tls/certs/') &&
  GENERATED_CERT_FOLDERS.has(source.slice('./deploy/tls/certs/'.length));

/** Host side of each mount: bind mounts must exist in the repo, named volumes must be declared. */
function mountProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  const named = new Set(Object.keys(doc.volumes ?? {}));
  for (const [name, service] of Object.entries(doc.services)) {
    for (const volume of service.volumes ?? []) {
      const source = typeof volume === 'string' ? volume.split(':')[0] : volume.source;
      const parts = typeof volume === 'string' ? volume.split(':') : [];
      if (!source || (typeof volume === 'string' && parts.length === 1)) continue; // anonymous volume
      if (/^[.~/]/.test(source)) {
        if (source.startsWith('~') || source.startsWith('/'))
          problems.push(`${name}: ${source} is outside the repository`);
        else if (!existsSync(join(root, source)) && !generated(source))
          problems.push(`${name}: ${source} does not exist`);
      } else if (!named.has(source)) problems.push(`${name}: named volume ${source} is not declared`);
    }
  }
  return problems;
}

/** A local image (built here) may carry any tag; everything pulled must name a fixed tag. */
function imageProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  for (const [name, { image, build }] of Object.entries(doc.services)) {
    if (!image) {
      if (build === undefined) problems.push(`${name}: neither image nor build`);
      continue;
    }
    const afterRegistry = image.slice(image.lastIndexOf('/') + 1);
    const tag = afterRegistry.includes('@') ? 'digest' : afterRegistry.split(':')[1];
    if (!tag) problems.push(`${name}: ${image} has no tag`);
    else if (tag === 'latest' || tag.includes('${')) problems.push(`${name}: ${image} is not pinned`);
  }
  return problems;
}

/** The service's env files, as repository paths. */
const envFiles = (s: Service): string[] =>
  [s.env_file ?? []].flat().map((f) => (typeof f === 'string' ? f : f.path).replace(/^\.\//, ''));

/** `environment:` only. */
const ownEnvironment = (s: Service): Record<string, string> =>
  Array.isArray(s.environment)
    ? Object.fromEntries(s.environment.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
    : Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]));

/** What the container gets: its env files in order, then `environment:` (which wins, as in compose). */
const environment = (s: Service): Record<string, string> =>
  Object.assign(
    {},
    ...envFiles(s).map((f) => (existsSync(join(root, f)) ? parseEnvFile(read(f), f) : {})),
    ownEnvironment(s),
  ) as Record<string, string>;

/** Environment variables read by a module and, recursively, by the local modules it imports. */
function envVarsRead(entry: string, seen = new Set<string>()): Set<string> {
  const vars = new Set<string>();
  if (seen.has(entry)) return vars;
  seen.add(entry);
  const source = readFileSync(entry, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  for (const m of source.matchAll(
    /\b(?:process\.)?env(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g,
  ))
    vars.add(m[1] ?? m[2] ?? '');
  // Temporal's connection variables are named in lists (connection-config.ts reads them by name).
  for (const m of source.matchAll(/['"](TEMPORAL_[A-Z0-9_]+)['"]/g)) vars.add(m[1]!);
  for (const m of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)) {
    for (const v of envVarsRead(resolve(dirname(entry), m[1] ?? ''), seen)) vars.add(v);
  }
  return vars;
}

const workerMain = join(root, 'packages/temporal-workflows/src/worker/worker-main.ts');

/**
 * Connection settings a deployment sets only when it needs them (Temporal Cloud's API key, a temporal.toml
 * profile, TLS files): deploy/README.md "Temporal Cloud and TLS". Every other variable the worker reads is
 * set on compose's worker service.
 */
const OPTIONAL_WORKER_ENV =
  /^(TEMPORAL_PROFILE|TEMPORAL_CONFIG_FILE|TEMPORAL_API_KEY|TEMPORAL_TLS(_[A-Z0-9_]+)?)$/;

function workerEnvProblems(doc: ComposeFile): string[] {
  const set = environment(doc.services.worker ?? {});
  return [...envVarsRead(workerMain)]
    .filter((v) => v !== 'NODE_ENV' && !OPTIONAL_WORKER_ENV.test(v) && !(v in set))
    .map((v) => `worker: ${v} (read by the worker) is not set`);
}

function dockerfileProblems(dockerfile: string): string[] {
  const problems: string[] = [];
  const from = dockerfile.match(/^FROM\s+(\S+)/m)?.[1];
  if (!from || !/:[\w.-]+$/.test(from) || from.endsWith(':latest'))
    problems.push(`base image ${from} not pinned`);
  for (const m of dockerfile.matchAll(/^COPY\s+(?!--from)(.+)$/gm)) {
    const args = (m[1] ?? '').split(/\s+/).filter((a) => !a.startsWith('--'));
    for (const src of args.slice(0, -1))
      if (src !== '.' && !existsSync(join(root, src))) problems.push(`COPY source ${src} does not exist`);
  }
  for (const m of dockerfile.matchAll(/^CMD\s+\[(.+)\]$/gm)) {
    const [, script] = JSON.parse(`[${m[1]}]`) as string[];
    if (script && !existsSync(join(root, script))) problems.push(`CMD script ${script} does not exist`);
  }
  return problems;
}

/** Env files: in deploy/env, in the format both readers share, no secret, no key also in `environment:`. */
function envFileProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  const secret = /(PASSWORD|_PWD|_KEY|SECRET)$/;
  for (const [name, service] of Object.entries(doc.services)) {
    const own = ownEnvironment(service);
    for (const file of envFiles(service)) {
      if (!file.startsWith('deploy/env/')) problems.push(`${name}: env file ${file} is not in deploy/env/`);
      if (!existsSync(join(root, file))) {
        problems.push(`${name}: env file ${file} does not exist`);
        continue;
      }
      let values: Record<string, string> = {};
      try {
        values = parseEnvFile(read(file), file);
      } catch (e) {
        problems.push((e as Error).message);
      }
      for (const key of Object.keys(values)) {
        // A key file's path (TLS) is not the secret itself.
        if (secret.test(key) && !values[key]!.startsWith('/'))
          problems.push(`${file}: ${key} looks like a secret (secrets come from .env)`);
        if (key in own) problems.push(`${name}: ${key} is set in ${file} and in environment (one home)`);
      }
    }
  }
  return problems;
}

/**
 * What the native harness may change: each file of deploy/env has an entry, compose uses it, and every
 * key changed is there and holds an address (a service name, host:port, 0.0.0.0), a port or a path.
 */
function overrideProblems(doc: ComposeFile, overrides: Record<string, readonly string[]>): string[] {
  const problems: string[] = [];
  const used = new Set(Object.values(doc.services).flatMap(envFiles));
  const services = new Set(Object.keys(doc.services));
  const files = readdirSync(join(root, 'deploy/env')).filter((f) => f.endsWith('.env'));
  for (const file of files) {
    if (!(file in overrides)) problems.push(`deploy/env/${file} is not read by the native harness`);
    if (!used.has(`deploy/env/${file}`))
      problems.push(`deploy/env/${file} is not used by docker-compose.yml`);
  }
  for (const [file, keys] of Object.entries(overrides)) {
    if (!files.includes(file)) {
      problems.push(`NATIVE_OVERRIDES names deploy/env/${file}, which does not exist`);
      continue;
    }
    const values = parseEnvFile(read(`deploy/env/${file}`), file);
    for (const key of keys) {
      const value = values[key];
      if (value === undefined) problems.push(`${file}: ${key} (changed natively) is not set`);
      else if (
        !services.has(value.split(':')[0] ?? '') &&
        // A database URL on a compose service, e.g. postgres://role@postgresql:5432/db.
        !services.has(/^postgres(?:ql)?:\/\/[^@/]+@([^:/]+)/.exec(value)?.[1] ?? '') &&
        !/^\d+$/.test(value) &&
        !/^0\.0\.0\.0(:\d+)?$/.test(value) && // every interface (a port with it: PROMETHEUS_ENDPOINT)
        !/^(\/|config\/)/.test(value)
      )
        problems.push(
          `${file}: ${key}=${value} is not an address, port or path: the native run must use it as is`,
        );
    }
  }
  return problems;
}

/** Values that must agree across services, files and code. */
function agreementProblems(doc: ComposeFile): string[] {
  const problems: string[] = [];
  const s = doc.services;
  const pgEnv = environment(s.postgresql);
  const temporal = environment(s.temporal);
  const schema = environment(s['temporal-schema'] ?? {});
  const n8n = environment(s.n8n);
  const worker = environment(s.worker);
  const namespace = environment(s['temporal-namespace'] ?? {});
  const same = (what: string, values: (string | undefined)[]) => {
    if (new Set(values).size !== 1 || values[0] === undefined)
      problems.push(`${what} differ: ${values.map((v) => v ?? '(unset)').join(' / ')}`);
  };
  // One role per service, as deploy/postgres/init-roles.sh creates them from postgresql.env.
  const storeUrls = [worker.SELLING_KIT_JOB_STORE, worker.SELLING_KIT_TOKEN_STORE].map((u) =>
    /^postgres(?:ql)?:\/\/([^@/:]+)@([^:/]+):(\d+)\/(\w+)$/.exec(u ?? ''),
  );
  same("Temporal's role (postgresql.env, temporal-schema, temporal)", [
    pgEnv.TEMPORAL_DB_USER,
    schema.POSTGRES_USER,
    temporal.POSTGRES_USER,
  ]);
  same("Temporal's databases (postgresql.env, temporal-schema, temporal)", [
    pgEnv.TEMPORAL_DB_NAMES,
    [schema.DBNAME, schema.VISIBILITY_DBNAME].join(','),
    [temporal.DBNAME, temporal.VISIBILITY_DBNAME].join(','),
  ]);
  same("n8n's role (postgresql.env, n8n)", [pgEnv.N8N_DB_USER, n8n.DB_POSTGRESDB_USER]);
  same("n8n's database (postgresql.env, n8n)", [pgEnv.N8N_DB_NAME, n8n.DB_POSTGRESDB_DATABASE]);
  same("the stores' role (postgresql.env, the worker's job store and token store URLs)", [
    pgEnv.SELLING_KIT_DB_USER,
    ...storeUrls.map((m) => m?.[1]),
  ]);
  same("the stores' database (postgresql.env, the worker's job store and token store URLs)", [
    pgEnv.SELLING_KIT_DB_NAME,
    ...storeUrls.map((m) => m?.[4]),
  ]);
  same('PostgreSQL hosts (the postgresql service)', [
    'postgresql',
    schema.POSTGRES_SEEDS,
    temporal.POSTGRES_SEEDS,
    n8n.DB_POSTGRESDB_HOST,
    ...storeUrls.map((m) => m?.[2]),
  ]);
  same('persistence of the schema set-up and the server', [
    [schema.DB, schema.DBNAME, schema.VISIBILITY_DBNAME].join(' '),
    [temporal.DB, temporal.DBNAME, temporal.VISIBILITY_DBNAME].join(' '),
  ]);
  same('persistence plugin', ['postgres12', temporal.DB]);
  const published = (s.temporal.ports ?? []).map((p) => String(p).split(':').at(-1));
  same("the frontend port (server, its published port, clients' address)", [
    temporal.FRONTEND_GRPC_PORT,
    published[0],
    worker.TEMPORAL_ADDRESS?.split(':')[1],
    namespace.TEMPORAL_ADDRESS?.split(':')[1],
  ]);
  same('the namespace (set up, used by the worker: "default")', [namespace.TEMPORAL_NAMESPACE, 'default']);
  const attributes = SEARCH_ATTRIBUTE_FLAGS.filter((_, i) => i % 2 === 1).map((f) => f.split('=')[0]);
  same('search attributes (namespace set-up, src/search-attributes.ts)', [
    namespace.SELLING_KIT_SEARCH_ATTRIBUTES,
    attributes.join(','),
  ]);
  const tag = (image?: string) => image?.split(':')[1];
  const setupVersion = /SELLING_KIT_TEMPORAL_SERVER_VERSION:-([\d.]+)/.exec(
    read('scripts/setup-temporal-server.sh'),
  )?.[1];
  same('Temporal server versions (server image, admin-tools image, scripts/setup-temporal-server.sh)', [
    tag(s.temporal.image),
    tag(s['temporal-schema']?.image),
    tag(s['temporal-namespace']?.image),
    setupVersion,
  ]);
  const stop = /^(\d+)s$/.exec(s.worker.stop_grace_period ?? '')?.[1];
  if (!stop || Number(stop) * 1000 <= DEFAULT_SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MARGIN_MS)
    problems.push(
      `worker: stop_grace_period ${s.worker.stop_grace_period} must exceed the worker's force time`,
    );
  return problems;
}

// ---- the tests ----

describe('docker-compose.yml', () => {
  test('is valid against the compose-spec JSON schema', () => {
    expect(schemaErrors(compose())).toEqual([]);
  });

  test('has the services of the stack, the simulator under a profile', () => {
    const { services } = compose();
    for (const name of [
      'postgresql',
      'temporal-schema',
      'temporal',
      'temporal-ui',
      'worker',
      'n8n',
      'simulator',
    ])
      expect(services).toHaveProperty([name]);
    expect(services.simulator.profiles?.length).toBeGreaterThan(0);
    for (const [name, s] of Object.entries(services))
      if (name !== 'simulator') expect([name, s.profiles]).toEqual([name, undefined]);
  });

  test('every depends_on target exists, and those awaited as healthy have a healthcheck', () => {
    expect(dependencyProblems(compose())).toEqual([]);
  });

  test('long-running services have health checks', () => {
    const { services } = compose();
    const oneShots = Object.entries(services)
      .filter(([, s]) => !s.healthcheck)
      .map(([name]) => name);
    expect(oneShots.sort()).toEqual(['temporal-namespace', 'temporal-schema']);
  });

  test('build contexts and Dockerfiles exist; the Dockerfile copies and runs files that exist', () => {
    expect(buildProblems(compose())).toEqual([]);
    expect(dockerfileProblems(read('Dockerfile'))).toEqual([]);
    expect(existsSync(join(root, '.dockerignore'))).toBe(true);
  });

  test('every mounted host path exists in the repository, every named volume is declared', () => {
    expect(mountProblems(compose())).toEqual([]);
  });

  test('every pulled image is pinned to a tag (no latest)', () => {
    expect(imageProblems(compose())).toEqual([]);
  });

  test('every environment variable the worker reads is set on the worker service', () => {
    const vars = envVarsRead(workerMain);
    expect(vars).toContain('TEMPORAL_ADDRESS');
    expect(vars).toContain('SELLING_KIT_CODEC_KEY'); // read in codec.ts, reached through the imports
    expect(workerEnvProblems(compose())).toEqual([]);
  });

  test('env files: in deploy/env, one format, no secrets, no key set twice for a service', () => {
    expect(envFileProblems(compose())).toEqual([]);
  });

  test('the native harness reads every env file compose uses and changes only addresses, ports, paths', () => {
    expect(overrideProblems(compose(), NATIVE_OVERRIDES)).toEqual([]);
  });

  test('values agree across services, env files and code (users, hosts, ports, versions, attributes)', () => {
    expect(agreementProblems(compose())).toEqual([]);
  });

  test('the simulator command uses flags the simulator CLI defines', () => {
    const cli = read('packages/simulator/src/cli.ts');
    const command = [compose().services.simulator.command ?? []].flat();
    expect(existsSync(join(root, command[1] ?? 'missing'))).toBe(true);
    for (const flag of command.filter((a) => a.startsWith('--')))
      expect(cli).toMatch(new RegExp(`\\.option\\(\\s*'(?:-\\w, )?${flag}[ ']`));
  });
});

describe('the compose checks fail on broken files', () => {
  const base = () => compose();

  test('schema: unknown keys and wrong types are reported', () => {
    const doc = base() as unknown as {
      services: Record<'worker' | 'temporal', Record<string, unknown>>;
    };
    doc.services.worker.restrat = 'always';
    doc.services.temporal.ports = 7233;
    expect(schemaErrors(doc).length).toBeGreaterThanOrEqual(2);
  });

  test('dependencies: a missing target, a healthy wait without healthcheck', () => {
    const doc = base();
    doc.services.worker.depends_on = { nowhere: { condition: 'service_started' } };
    delete doc.services.temporal.healthcheck;
    expect(dependencyProblems(doc)).toEqual([
      'temporal-namespace waits for temporal to be healthy, but temporal has no healthcheck',
      'temporal-ui waits for temporal to be healthy, but temporal has no healthcheck',
      'worker depends on missing service nowhere',
    ]);
  });

  test('builds, mounts and images', () => {
    const doc = base();
    doc.services.worker.build = { context: '.', dockerfile: 'Dockerfile.missing' };
    doc.services.n8n.volumes = ['./packages/no-such-package:/x:ro', 'undeclared:/y', '/etc:/z'];
    doc.services.postgresql.image = 'postgres';
    doc.services['temporal-ui'].image = 'temporalio/ui:latest';
    expect(buildProblems(doc)).toEqual(['worker: Dockerfile.missing does not exist']);
    expect(mountProblems(doc)).toEqual([
      'n8n: ./packages/no-such-package does not exist',
      'n8n: named volume undeclared is not declared',
      'n8n: /etc is outside the repository',
    ]);
    expect(imageProblems(doc)).toEqual([
      'postgresql: postgres has no tag',
      'temporal-ui: temporalio/ui:latest is not pinned',
    ]);
  });

  test('worker environment: a variable the worker reads but compose does not set', () => {
    const doc = base();
    const env = doc.services.worker.environment as Record<string, string>;
    delete env.SELLING_KIT_CODEC_KEY;
    expect(workerEnvProblems(doc)).toEqual(['worker: SELLING_KIT_CODEC_KEY (read by the worker) is not set']);
    doc.services.worker.env_file = ['deploy/env/temporal-client.env']; // worker.env forgotten
    expect(workerEnvProblems(doc)).toEqual(
      expect.arrayContaining(['worker: SELLING_KIT_TASK_QUEUE (read by the worker) is not set']),
    );
  });

  test('env files: outside deploy/env, missing, quoted, interpolated, a key also in environment', () => {
    const doc = base();
    doc.services.n8n.env_file = ['deploy/env/n8n.env', 'n8n.env', 'deploy/env/missing.env'];
    (doc.services.n8n.environment as Record<string, string>).DB_TYPE = 'sqlite';
    expect(envFileProblems(doc)).toEqual([
      'n8n: DB_TYPE is set in deploy/env/n8n.env and in environment (one home)',
      'n8n: env file n8n.env is not in deploy/env/',
      'n8n: env file n8n.env does not exist',
      'n8n: env file deploy/env/missing.env does not exist',
    ]);
    expect(() => parseEnvFile('A="quoted"', 'x.env')).toThrow('x.env:1: not KEY=value');
    expect(() => parseEnvFile('A=${B}', 'x.env')).toThrow('x.env:1');
    expect(() => parseEnvFile('A=1\nA=2', 'x.env')).toThrow('A is set twice');
    expect(() => parseEnvFile('A=x y', 'x.env')).toThrow('x.env:1'); // a shell would run `y`
  });

  test('native overrides: an unread file, an unknown key, a value that is not an address, port or path', () => {
    const doc = base();
    delete doc.services.n8n.env_file;
    const overrides: Record<string, readonly string[]> = {
      ...NATIVE_OVERRIDES,
      'temporal-persistence.env': ['DB_PORT', 'DB', 'NO_SUCH_KEY'],
    };
    delete overrides['worker.env' satisfies DeployEnvFile];
    expect(overrideProblems(doc, overrides).sort()).toEqual([
      'deploy/env/n8n.env is not used by docker-compose.yml',
      'deploy/env/worker.env is not read by the native harness',
      'temporal-persistence.env: DB=postgres12 is not an address, port or path: the native run must use it as is',
      'temporal-persistence.env: NO_SUCH_KEY (changed natively) is not set',
    ]);
  });

  test('agreement: a user, a port, a version, the attributes and the stop time that drifted', () => {
    const doc = base();
    (doc.services.n8n.environment as Record<string, string>).DB_POSTGRESDB_USER = 'postgres';
    doc.services.temporal.ports = ['127.0.0.1:7233:7234'];
    doc.services['temporal-namespace']!.image = 'temporalio/admin-tools:1.30.0';
    doc.services['temporal-namespace']!.env_file = [];
    doc.services.worker.stop_grace_period = '20s';
    const problems = agreementProblems(doc).map((p) => p.split(' differ')[0]);
    expect(problems).toEqual([
      "n8n's role (postgresql.env, n8n)",
      "the frontend port (server, its published port, clients' address)",
      'the namespace (set up, used by the worker: "default")',
      'search attributes (namespace set-up, src/search-attributes.ts)',
      'Temporal server versions (server image, admin-tools image, scripts/setup-temporal-server.sh)',
      "worker: stop_grace_period 20s must exceed the worker's force time",
    ]);
  });

  test('Dockerfile: unpinned base, missing COPY source and CMD script', () => {
    expect(
      dockerfileProblems('FROM node\nCOPY nope.json ./\nCMD ["node", "packages/nope/main.ts"]\n'),
    ).toEqual([
      'base image node not pinned',
      'COPY source nope.json does not exist',
      'CMD script packages/nope/main.ts does not exist',
    ]);
  });
});
