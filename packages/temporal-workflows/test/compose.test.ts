// Static checks of the root docker-compose.yml (no Docker engine runs in CI): the file must satisfy the
// compose-spec JSON schema (vendored in deploy/compose-spec.json) and stay honest — dependencies,
// health checks, build contexts, mounts, pinned images and the worker's environment agree with the repo.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  environment?: string[] | Record<string, string | number | boolean | null>;
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
        else if (!existsSync(join(root, source))) problems.push(`${name}: ${source} does not exist`);
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

const environment = (s: Service): Record<string, string> =>
  Array.isArray(s.environment)
    ? Object.fromEntries(s.environment.map((e) => [e.split('=')[0], e.split('=').slice(1).join('=')]))
    : Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]));

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
  for (const m of source.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)) {
    for (const v of envVarsRead(resolve(dirname(entry), m[1] ?? ''), seen)) vars.add(v);
  }
  return vars;
}

const workerMain = join(root, 'packages/temporal-workflows/src/worker-main.ts');

function workerEnvProblems(doc: ComposeFile): string[] {
  const set = environment(doc.services.worker ?? {});
  return [...envVarsRead(workerMain)]
    .filter((v) => v !== 'NODE_ENV' && !(v in set))
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
    delete env.SELLING_KIT_TASK_QUEUE;
    expect(workerEnvProblems(doc)).toEqual([
      'worker: SELLING_KIT_TASK_QUEUE (read by the worker) is not set',
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
