// The packages as their users get them (issue 23): every workspace package built and packed with
// `pnpm pack`, the tarballs installed with plain `npm install` into a throw-away project OUTSIDE the
// workspace, once with Node 24 (this process's) and once with Node 22 (SELLING_KIT_NODE22_BIN, fetched by
// scripts/setup.sh), and there: the CLI's help and `selling-kit simulator --demo`, a listing created and
// listed through the installed client against the installed simulator's bin, the workflows bundled from
// node_modules with Temporal's bundleWorkflowCode; then the n8n package installed the way n8n installs a
// community node (npm into <userFolder>/.n8n/nodes) and loaded by a real n8n 2.40.7, which runs a
// workflow with its Marketplace node. The closing note (tarball sizes, install times, what ran on which
// Node) is printed and written to test-output/pack.json.
// Also `pnpm test:pack`.
// @needs build
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { N8nApi } from '../src/n8n/api.ts';
import { findN8nBin, NODES_PACKAGE_NAME } from '../src/n8n/install.ts';
import { spawnN8n, type N8nProcess } from '../src/n8n/process.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./pack/', import.meta.url));
const OUTPUT = fileURLToPath(new URL('../test-output/', import.meta.url));
/** Every workspace package, each published. */
const PACKAGES = ['api-client', 'simulator', 'temporal-workflows', 'cli', 'n8n-nodes'];
const MINUTE = 60_000;

/** The Node binaries under test: this process's (Node 24, setup.sh) and setup.sh's cached Node 22. */
function nodes(): { label: string; bin: string }[] {
  const node22 = process.env.SELLING_KIT_NODE22_BIN;
  if (!node22 || !existsSync(node22))
    throw new Error(
      'SELLING_KIT_NODE22_BIN is not set or missing: source scripts/setup.sh (it fetches Node 22)',
    );
  return [
    { label: `node ${process.version}`, bin: process.execPath },
    { label: 'node 22', bin: node22 },
  ];
}

/** Plain npm, run by `node` (npm's shebang finds the first node on PATH): the Node under test. */
function npmEnv(node: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
    npm_config_loglevel: 'error',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
    // This process's pnpm settings are not the user's.
    npm_config_store_dir: undefined,
    NODE_OPTIONS: undefined,
  };
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t0 = Date.now();
  const value = await work();
  return [value, Date.now() - t0];
}

/** Runs `node script args` in `cwd` with the Node under test; its stdout. */
async function node(bin: string, cwd: string, args: string[], timeout = 3 * MINUTE): Promise<string> {
  const { stdout } = await run(bin, args, {
    cwd,
    env: npmEnv(bin),
    timeout,
    maxBuffer: 32 * 1024 * 1024,
  }).catch((e: { message: string; stdout?: string; stderr?: string }) => {
    throw new Error(`${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  });
  return stdout;
}

/** A new project outside the workspace with every tarball installed by `npm install`; ms taken. */
async function installProject(bin: string, tarballs: string[], label: string): Promise<[string, number]> {
  const dir = mkdtempSync(join(tmpdir(), `sk-pack-${label.replace(/\W+/g, '')}-`));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'pack-check', private: true, type: 'module' }),
  );
  const [, ms] = await timed(() =>
    run('npm', ['install', '--prefer-offline', ...tarballs], {
      cwd: dir,
      env: npmEnv(bin),
      timeout: 8 * MINUTE,
      maxBuffer: 32 * 1024 * 1024,
    }).catch((e: { message: string; stderr?: string }) => {
      throw new Error(`npm install with ${label} failed: ${e.message}\n${e.stderr ?? ''}`);
    }),
  );
  for (const fixture of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, fixture), join(dir, fixture));
  return [dir, ms];
}

const note: {
  tarballs: Record<string, number>;
  installMs: Record<string, number>;
  checks: Record<string, string[]>;
} = { tarballs: {}, installMs: {}, checks: {} };
const passed = (label: string, check: string) => (note.checks[label] ??= []).push(check);

const packDir = mkdtempSync(join(tmpdir(), 'sk-pack-tarballs-'));
const projects = new Map<string, string>();
let tarballs: string[] = [];

beforeAll(async () => {
  await run('pnpm', ['-r', 'build'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 10 * MINUTE });
  for (const name of PACKAGES)
    await run('pnpm', ['pack', '--pack-destination', packDir], { cwd: join(ROOT, 'packages', name) });
  tarballs = readdirSync(packDir).map((f) => join(packDir, f));
  expect(tarballs).toHaveLength(PACKAGES.length);
  for (const t of tarballs) note.tarballs[t.split('/').pop()!] = statSync(t).size;
  // One Node at a time: two installs at once would only share two cores.
  for (const { label, bin } of nodes()) {
    const [dir, ms] = await installProject(bin, tarballs, label);
    projects.set(label, dir);
    note.installMs[label] = ms;
  }
}, 30 * MINUTE);

afterAll(() => {
  mkdirSync(OUTPUT, { recursive: true });
  writeFileSync(join(OUTPUT, 'pack.json'), `${JSON.stringify(note, null, 2)}\n`);
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    [
      'pack: tarballs ' +
        Object.entries(note.tarballs)
          .map(([t, n]) => `${t} ${kib(n)}`)
          .join(', '),
      'pack: npm install ' +
        Object.entries(note.installMs)
          .map(([l, ms]) => `${l} ${(ms / 1000).toFixed(1)} s`)
          .join(', '),
      ...Object.entries(note.checks).map(([l, c]) => `pack: ${l}: ${c.join(', ')}`),
    ].join('\n'),
  );
  for (const dir of [packDir, ...projects.values()]) rmSync(dir, { recursive: true, force: true });
});

describe.each(nodes())('installed from the tarballs with npm, run by $label', ({ label, bin }) => {
  const project = () => projects.get(label)!;
  const cli = () => join(project(), 'node_modules', '.bin', 'selling-kit');

  it('is installed outside the workspace, every package from its dist/ (no TypeScript source shipped)', () => {
    expect(project().startsWith(ROOT)).toBe(false);
    // Nothing above the project could lend it a package: what resolves comes from its own node_modules.
    for (let dir = dirname(project()); dir !== dirname(dir); dir = dirname(dir))
      expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    for (const name of PACKAGES) {
      const dir = join(
        project(),
        'node_modules',
        '@selling-kit',
        name === 'n8n-nodes' ? 'n8n-nodes-marketplace' : name,
      );
      expect(readdirSync(dir)).toEqual(
        expect.arrayContaining(['dist', 'LICENSE', 'README.md', 'package.json']),
      );
      expect(readdirSync(dir)).not.toContain('src');
    }
  });

  it(
    'has declarations that resolve with moduleResolution nodenext (tsc on a file importing every public entry)',
    async () => {
      const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      await node(bin, project(), [tsc, '-p', 'tsconfig.check.json']);
      passed(label, 'types (nodenext)');
    },
    2 * MINUTE,
  );

  it('runs `selling-kit --help`', async () => {
    const out = await node(bin, project(), [cli(), '--help']);
    expect(out).toMatch(/^Usage: selling-kit/);
    expect(out).toContain('simulator');
    passed(label, 'selling-kit --help');
  });

  it(
    'runs `selling-kit simulator --demo` (the simulator package through its bin)',
    async () => {
      const child = spawn(bin, [cli(), 'simulator', '--demo', '--port', '0'], {
        cwd: project(),
        env: npmEnv(bin),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', () => /Demo shop: demo-shop/.test(out) && resolve());
        void exited.then((code) =>
          reject(new Error(`the simulator exited (${code}) before it was ready:\n${out}`)),
        );
      });
      const api = /API:\s+(http:\/\/\S+)/.exec(out)![1]!;
      expect((await fetch(`${api}/status`)).status).toBeLessThan(500);
      child.kill('SIGTERM');
      await exited;
      expect(out).toContain('selling-kit simulator is running');
      // The CLI passed the SIGTERM on and waited for the simulator: nothing answers there any more.
      await expect(fetch(`${api}/status`)).rejects.toThrow();
      passed(label, 'selling-kit simulator --demo');
    },
    2 * MINUTE,
  );

  it(
    'creates and lists a listing through the client against the simulator bin',
    async () => {
      const out = JSON.parse(await node(bin, project(), ['create-and-list.mjs'])) as {
        node: string;
        productId: number;
        skus: string[];
      };
      expect(out.productId).toEqual(expect.any(Number));
      expect(out.skus).toContain('PACK-1');
      passed(label, `client create + list (${out.node})`);
    },
    2 * MINUTE,
  );

  it(
    "bundles the workflows from node_modules with Temporal's bundleWorkflowCode",
    async () => {
      const out = JSON.parse(await node(bin, project(), ['bundle-workflows.mjs'], 5 * MINUTE)) as {
        createWorker: string;
        workflowsPath: string;
        bytes: number;
      };
      expect(out.createWorker).toBe('function');
      expect(out.workflowsPath).toBe(
        join(project(), 'node_modules/@selling-kit/temporal-workflows/dist/workflows/index.js'),
      );
      expect(out.bytes).toBeGreaterThan(100_000);
      passed(label, `bundleWorkflowCode (${(out.bytes / 1024 / 1024).toFixed(1)} MiB bundle)`);
    },
    6 * MINUTE,
  );
});

describe('the n8n package in a real n8n, installed the way n8n installs a community node', () => {
  // n8n's cached install (scripts/setup-n8n.sh) is built for Node 24, this process's Node.
  const label = `node ${process.version}`;
  let n8n: N8nProcess | undefined;
  let sim: ReturnType<typeof spawn> | undefined;
  const userFolder = mkdtempSync(join(tmpdir(), 'sk-pack-n8n-'));
  afterAll(async () => {
    await n8n?.stop();
    sim?.stdout?.destroy();
    sim?.kill('SIGTERM');
    rmSync(userFolder, { recursive: true, force: true });
  });

  it(
    'loads the nodes from <userFolder>/.n8n/nodes and runs a workflow with the Marketplace node',
    async () => {
      const bin = findN8nBin();
      if (!bin)
        throw new Error('n8n 2.40.7 is not installed: run "bash scripts/setup-n8n.sh" (setup.sh does it)');
      const nodesDir = join(userFolder, '.n8n', 'nodes');
      mkdirSync(nodesDir, { recursive: true });
      writeFileSync(
        join(nodesDir, 'package.json'),
        JSON.stringify({ name: 'installed-nodes', private: true }),
      );
      const tarball = tarballs.find((t) => t.includes('n8n-nodes-marketplace'))!;
      const [, ms] = await timed(() =>
        run('npm', ['install', '--prefer-offline', tarball], {
          cwd: nodesDir,
          env: npmEnv(process.execPath),
        }),
      );
      note.installMs['n8n nodes folder'] = ms;
      expect(readdirSync(join(nodesDir, 'node_modules', '@selling-kit'))).toEqual(['n8n-nodes-marketplace']);

      // The demo simulator from the installed package (Node 24's project).
      const project = projects.get(label)!;
      sim = spawn(
        process.execPath,
        [join(project, 'node_modules/.bin/selling-kit-simulator'), '--demo', '--port', '0'],
        {
          cwd: project,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let simOut = '';
      const simUrl = await new Promise<string>((resolve) =>
        sim!.stdout!.on('data', (d: Buffer) => {
          simOut += d.toString();
          const found = /API:\s+(http:\/\/\S+)/.exec(simOut);
          if (found && /Demo API key:/.test(simOut)) resolve(found[1]!);
        }),
      );
      const apiKey = /Demo API key:\s+(\S+)/.exec(simOut)![1]!;

      const owner = {
        email: 'pack-owner@selling-kit.test',
        password: `Pack-${randomBytes(12).toString('hex')}-Pw1`,
      };
      n8n = await spawnN8n({
        bin,
        userFolder,
        port: 0,
        logFile: join(OUTPUT, 'pack-n8n.log'),
        owner,
        readyTimeoutMs: 4 * MINUTE,
        env: { N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex') },
      });
      await n8n.ready;
      const client = new N8nApi(n8n.url);
      await client.login(owner.email, owner.password);
      client.apiKey = await client.createApiKey('pack test');

      // The editor's node catalogue (served to a logged-in session): what n8n loaded from the nodes folder.
      const login = await fetch(`${n8n.url}/rest/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
      });
      const cookie = (login.headers.getSetCookie().find((c) => c.startsWith('n8n-auth=')) ?? '').split(
        ';',
      )[0]!;
      const types = (await fetch(`${n8n.url}/types/nodes.json`, { headers: { cookie } }).then((r) =>
        r.json(),
      )) as {
        name: string;
      }[];
      const names = types.map((t) => t.name);
      for (const node of ['marketplace', 'marketplaceTrigger', 'marketplaceBulkJob'])
        expect(names).toContain(`${NODES_PACKAGE_NAME}.${node}`);

      const credential = await client.api<{ id: string; name: string }>('POST', '/credentials', {
        name: 'Packed demo shop',
        type: 'marketplaceApi',
        data: { environment: 'custom', baseUrl: simUrl, apiKey },
      });
      const path = `pack-${randomUUID()}`;
      const workflow = {
        name: 'pack: get a demo listing',
        nodes: [
          {
            id: randomUUID(),
            name: 'Start',
            type: 'n8n-nodes-base.webhook',
            typeVersion: 2,
            webhookId: randomUUID(),
            position: [0, 0],
            parameters: {
              httpMethod: 'POST',
              path,
              responseMode: 'lastNode',
              responseData: 'allEntries',
              options: {},
            },
          },
          {
            id: randomUUID(),
            name: 'Get listing',
            type: `${NODES_PACKAGE_NAME}.marketplace`,
            typeVersion: 1,
            position: [240, 0],
            parameters: {
              authentication: 'apiKey',
              resource: 'products',
              operation: 'get',
              productKey: 'sku',
              sku: 'DEMO-TEE-001',
            },
            credentials: { marketplaceApi: { id: credential.id, name: credential.name } },
          },
        ],
        connections: { Start: { main: [[{ node: 'Get listing', type: 'main', index: 0 }]] } },
        settings: { executionOrder: 'v1' },
      };
      const { id } = await client.api<{ id: string }>('POST', '/workflows', workflow);
      await client.api('POST', `/workflows/${id}/activate`);
      // Activation registers the webhook asynchronously: POST until it is served (nothing runs before).
      let answer: unknown;
      for (let attempt = 0; attempt < 120 && answer === undefined; attempt++) {
        const res = await fetch(`${n8n.url}/webhook/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        if (res.status === 404) await new Promise((r) => setTimeout(r, 500));
        else answer = { status: res.status, body: await res.text() };
      }
      const { status, body } = answer as { status: number; body: string };
      expect({ status, body }).toEqual({ status: 200, body: expect.stringContaining('DEMO-TEE-001') });
      passed(label, 'n8n 2.40.7 loads the npm-installed nodes and runs the Marketplace node');
    },
    10 * MINUTE,
  );
});
