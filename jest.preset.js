// The jest projects of the workspace: TypeScript through swc, native ESM (run with
// --experimental-vm-modules, see the root "test" scripts), tests under each package's test/.
//
// A test file says what it needs beyond Node in its header, one line:   // @needs temporal, n8n-package
// Each package is two projects: `<package>` (files with needs: the package's global set-up, e.g. the
// Temporal dev server, runs only when one of them is selected) and `<package>:unit` (no needs, no set-up):
// the one-minute loop, `pnpm test:unit`. A file that needs something it does not declare fails in both
// runs (the unit project starts nothing), so a missing line cannot pass unnoticed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

/** What a test may need, and why it keeps the test out of the unit loop. */
export const NEEDS = {
  temporal: 'the Temporal dev server of the global set-up (TEMPORAL_TEST_ADDRESS)',
  'n8n-package': 'the n8n package built and packed by its global set-up (SELLING_KIT_E2E_PACKAGE_DIR)',
  n8n: 'a real n8n process',
  browser: 'Chromium',
  topology: 'PostgreSQL, the Temporal server or promtool built by scripts/setup.sh (SELLING_KIT_TOPOLOGY=1)',
  build: 'builds or packs packages',
  minutes: 'no server, but real time: timers, retries or many processes (over ~10 s)',
};

const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2023' }, module: { type: 'es6' } },
];

const TEMPORAL_SETUP = {
  globalSetup: 'temporal-workflows/test/global-setup.js',
  globalTeardown: 'temporal-workflows/test/global-teardown.js',
};

/** Per package: its test files' extension and the global set-up its tests with needs share. */
const PACKAGES = {
  'api-client': {},
  simulator: {},
  // One real Temporal dev server for the run (never a mocked Temporal); the CLI's tests spawn the CLI
  // against the same one.
  'temporal-workflows': { setup: TEMPORAL_SETUP },
  cli: { setup: TEMPORAL_SETUP },
  // Tests are .mts: `n8n-node lint` (n8n's rules for code that runs inside n8n) covers every .ts file of
  // the package, and test code legitimately spawns processes and reads files. The set-up builds and packs
  // the package once; the end-to-end tests start a real n8n (and Temporal): generous time.
  'n8n-nodes': {
    ext: '.test.mts',
    setup: { globalSetup: 'n8n-nodes/test/global-setup.mjs' },
    testTimeout: 600_000,
  },
};

const HEADER_LINES = 40;
const NEEDS_LINE = /^\s*(?:\/\/|\*)\s*@needs\s+(.+?)\s*$/m;

/** The needs a test file declares in its first lines (none: a unit test). */
export function needsOf(file) {
  const head = readFileSync(file, 'utf8').split('\n').slice(0, HEADER_LINES).join('\n');
  const line = NEEDS_LINE.exec(head)?.[1];
  if (!line) return [];
  const needs = line.split(/[\s,]+/).filter(Boolean);
  const unknown = needs.filter((n) => !(n in NEEDS));
  if (unknown.length)
    throw new Error(`${file}: @needs ${unknown.join(', ')}: not one of ${Object.keys(NEEDS).join(', ')}`);
  return needs;
}

function testFiles(dir, ext) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : testFiles(path, ext);
    return name.endsWith(ext) ? [path] : [];
  });
}

/** The projects of one package: `<name>:unit` and `<name>` (the files with needs), each if it has files. */
export function packageProjects(name) {
  const { ext = '.test.ts', setup = {}, testTimeout } = PACKAGES[name];
  const rootDir = join(ROOT, 'packages', name);
  const files = testFiles(join(rootDir, 'test'), ext);
  const needing = new Set(files.filter((f) => needsOf(f).length > 0));
  const base = {
    rootDir,
    testEnvironment: 'node',
    moduleFileExtensions: ['ts', 'mts', 'js', 'mjs', 'cjs', 'json'],
    extensionsToTreatAsEsm: ['.ts'],
    transform: { '^.+\\.m?ts$': swc },
    ...(testTimeout ? { testTimeout } : {}),
  };
  const hooks = Object.fromEntries(
    Object.entries(setup).map(([hook, file]) => [hook, join(ROOT, 'packages', file)]),
  );
  // Paths as escaped regexes (a checkout's path may hold glob characters). The unit project matches by glob,
  // less the files with needs: a file created while `test:watch` runs is a unit test, as it will be.
  const exactly = (file) => `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
  const projects = [];
  if (files.length > needing.size)
    projects.push({
      ...base,
      displayName: `${name}:unit`,
      testMatch: [`<rootDir>/test/**/*${ext}`],
      testPathIgnorePatterns: ['/node_modules/', ...[...needing].map(exactly)],
    });
  if (needing.size > 0)
    projects.push({ ...base, ...hooks, displayName: name, testRegex: [...needing].map(exactly) });
  return projects;
}

export const PACKAGE_NAMES = Object.keys(PACKAGES);
