// Harness of the real-n8n end-to-end tests: packs this package the way it is published, installs it
// into a throw-away n8n user folder as a community package, starts n8n 2.40.7 (installed by
// scripts/setup-n8n.sh) on free loopback ports with an owner made from env — with the CLI's own n8n
// launcher and API client (packages/cli/src/n8n: what `selling-kit dev` runs is what is tested) — and
// talks to its REST and public APIs. Nothing here prints secrets: n8n's output goes to a log file under
// test-output/.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startSimulator, type RunningSimulator } from '@selling-kit/simulator';
import { CHROMIUM, CHROMIUM_ARGS, freePort } from '@selling-kit/simulator/testing';
import { N8nApi, type N8nExecution, type N8nNodeRun } from '../../../cli/src/n8n/api.ts';
import { findN8nBin, N8N_VERSION as DEFAULT_N8N_VERSION } from '../../../cli/src/n8n/install.ts';
import { spawnN8n } from '../../../cli/src/n8n/process.ts';

const run = promisify(execFile);

export { freePort };
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PACKAGE_NAME: string = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')).name;
export const OUTPUT_DIR = join(PACKAGE_DIR, 'test-output');
export const N8N_VERSION = process.env.SELLING_KIT_N8N_VERSION ?? DEFAULT_N8N_VERSION;

/** n8n's bin script, from scripts/setup-n8n.sh's cache (fails loudly when it is missing). */
export function n8nBin(): string {
  const bin = findN8nBin();
  if (!bin)
    throw new Error(
      `n8n ${N8N_VERSION} is not installed: run "bash scripts/setup-n8n.sh" (setup.sh does it)`,
    );
  return bin;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
  );
}

/**
 * Waits until n8n serves a POST webhook at `url`. Publishing registers webhooks asynchronously: a GET
 * probe answers "not registered" before, and "not registered for GET … POST" after (nothing runs).
 */
export async function waitForPostWebhook(url: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `the webhook ${url} to be registered`,
    async () => {
      const probe = await fetch(url, { method: 'GET' });
      const text = await probe.text();
      return /POST request/.test(text) ? true : undefined;
    },
    timeoutMs,
    250,
  );
}

/**
 * Builds this package, packs it (`pnpm pack`, the published tarball) and unpacks it into
 * `<userFolder>/.n8n/nodes/node_modules/<name>`, where n8n's community-packages module loads it.
 * SELLING_KIT_E2E_PACKAGE_DIR = the package already built and unpacked (test/global-setup.mjs does it once).
 */
export async function installPackedPackage(userFolder: string): Promise<string> {
  const target = join(userFolder, '.n8n', 'nodes', 'node_modules', ...PACKAGE_NAME.split('/'));
  mkdirSync(target, { recursive: true });
  const prebuilt = process.env.SELLING_KIT_E2E_PACKAGE_DIR;
  if (prebuilt) {
    await cp(prebuilt, target, { recursive: true });
    return target;
  }
  // Another test file may rebuild dist/ at the same time (the build empties it first): check that the
  // tarball holds every node and credential the package declares, and build + pack again if not.
  let missing: string[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const packDir = await mkdtemp(join(tmpdir(), 'sk-n8n-pack-'));
    try {
      await run('pnpm', ['run', 'build'], { cwd: PACKAGE_DIR, maxBuffer: 64 * 1024 * 1024 });
      await run('pnpm', ['pack', '--pack-destination', packDir], {
        cwd: PACKAGE_DIR,
        maxBuffer: 64 * 1024 * 1024,
      });
      const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
      if (!tarball) throw new Error(`pnpm pack wrote no tarball into ${packDir}`);
      await rm(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      await run('tar', ['-xzf', join(packDir, tarball), '-C', target, '--strip-components=1']);
    } finally {
      await rm(packDir, { recursive: true, force: true });
    }
    const shipped = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as {
      n8n?: { nodes?: string[]; credentials?: string[] };
    };
    const declared = [...(shipped.n8n?.nodes ?? []), ...(shipped.n8n?.credentials ?? [])];
    missing = declared.filter((file) => !existsSync(join(target, file)));
    if (declared.length > 0 && missing.length === 0) return target;
    await sleep(2_000 * attempt);
  }
  throw new Error(`the packed package lacks ${missing.join(', ') || 'its n8n section'}`);
}

export interface N8nInstance {
  url: string;
  port: number;
  userFolder: string;
  logFile: string;
  owner: { email: string; password: string };
  stop(): Promise<void>;
}

/**
 * Starts `n8n start` (the CLI's launcher, its recipe) on free ports in a fresh user folder with an owner
 * of its own; resolves once /healthz/readiness answers 200. A second attempt on new ports covers a port
 * taken between choosing it and n8n binding it. `settings` are layered over the recipe.
 */
export async function startN8n(options: {
  userFolder: string;
  logName?: string;
  readyTimeoutMs?: number;
  port?: number;
  baseEnv?: NodeJS.ProcessEnv;
  settings?: NodeJS.ProcessEnv;
}): Promise<N8nInstance> {
  try {
    return await startN8nOnce(options);
  } catch (error) {
    if (!/exited/.test((error as Error).message)) throw error;
    return await startN8nOnce({ ...options, logName: `retry-${options.logName ?? 'n8n.log'}` });
  }
}

async function startN8nOnce(options: Parameters<typeof startN8n>[0]): Promise<N8nInstance> {
  const owner = {
    email: 'e2e-owner@selling-kit.test',
    password: `E2e-${randomBytes(12).toString('hex')}-Pw1`,
  };
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const logFile = join(OUTPUT_DIR, options.logName ?? 'n8n.log');
  rmSync(logFile, { force: true }); // the launcher appends: this run's lines only
  const n8n = await spawnN8n({
    bin: n8nBin(),
    userFolder: options.userFolder,
    port: options.port ?? 0,
    logFile,
    owner,
    ownerName: { first: 'E2E', last: 'Owner' },
    readyTimeoutMs: options.readyTimeoutMs ?? 240_000,
    ...(options.baseEnv ? { baseEnv: options.baseEnv } : {}),
    env: { N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'), ...options.settings },
  });
  try {
    await n8n.ready;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tail(logFile, 30)}`);
  }
  return { url: n8n.url, port: n8n.port, userFolder: options.userFolder, logFile, owner, stop: n8n.stop };
}

export function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export type NodeRun = N8nNodeRun;
export type Execution = N8nExecution;

/** The CLI's n8n client with what the tests add: credentials, workflows, webhook runs, raw errors. */
export class N8nClient extends N8nApi {
  /** The whole answer in the error (the tests match n8n's own wording). */
  protected override failure(method: string, path: string, status: number, body: string): Error {
    return new Error(`${method} ${path} → ${status} ${body.slice(0, 500)}`);
  }

  async createCredential(
    name: string,
    type: string,
    data: Record<string, unknown>,
  ): Promise<{ id: string; name: string }> {
    const created = await this.api<{ id: string; name: string }>('POST', '/credentials', {
      name,
      type,
      data,
    });
    return { id: created.id, name: created.name };
  }

  async createWorkflow(workflow: Record<string, unknown>): Promise<string> {
    const created = await this.api<{ id: string }>('POST', '/workflows', workflow);
    return created.id;
  }

  async activate(workflowId: string): Promise<void> {
    await this.api('POST', `/workflows/${workflowId}/activate`);
  }

  /** Publishes a workflow started by webhookStart(path); resolves once n8n serves that webhook. */
  async publish(workflowId: string, path: string): Promise<void> {
    await this.activate(workflowId);
    await waitForPostWebhook(`${this.url}/webhook/${path}`);
  }

  /** POSTs `body` as JSON to the production webhook at `path`. */
  callWebhook(path: string, body: unknown = {}, timeoutMs = 120_000): Promise<Response> {
    return fetch(`${this.url}/webhook/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  }

  /** With each node's output (what nodeOutput() reads). */
  override executions(workflowId: string, options = { includeData: true }): Promise<Execution[]> {
    return super.executions(workflowId, options);
  }

  /** The newest execution of a workflow that has ended, waiting for one up to `timeoutMs`. */
  async lastExecution(workflowId: string, timeoutMs = 60_000): Promise<Execution> {
    return await waitFor(
      'the finished execution',
      async () => finished(await this.executions(workflowId)).sort((a, b) => Number(b.id) - Number(a.id))[0],
      timeoutMs,
    );
  }
}

/** The executions that have ended. */
export const finished = (list: Execution[]) =>
  list.filter((e) => e.finished || e.status === 'success' || e.status === 'error');

/** A session as the owner of `n8n`, with a public-API key of its own. */
export async function ownerClient(n8n: Pick<N8nInstance, 'url' | 'owner'>): Promise<N8nClient> {
  const client = new N8nClient(n8n.url);
  await client.login(n8n.owner.email, n8n.owner.password);
  client.apiKey = await client.createApiKey(`e2e-${randomUUID().slice(0, 8)}`);
  return client;
}

/** JSON of the items a node output in an execution (first run, first output). */
export function nodeOutput(execution: Execution, nodeName: string): Record<string, unknown>[] {
  const runs = execution.data?.resultData?.runData?.[nodeName];
  if (!runs?.length) throw new Error(`node "${nodeName}" did not run in execution ${execution.id}`);
  return (runs[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}

/** A call of the simulator's admin surface; its JSON answer. */
export async function simAdmin<T = unknown>(
  sim: RunningSimulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${sim.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export interface E2eSetup {
  userFolder: string;
  sim: RunningSimulator;
  n8n: N8nInstance;
  /** The owner's session and public-API key. */
  client: N8nClient;
  /** Stops n8n and the simulator and removes the user folder. */
  stop(): Promise<void>;
}

/**
 * What each end-to-end file starts with: the demo simulator, the packed package in a fresh user folder,
 * n8n (its log `test-output/<logName>`) and the owner's client.
 */
export async function startE2e(logName: string): Promise<E2eSetup> {
  const userFolder = await makeUserFolder();
  let sim: RunningSimulator | undefined;
  let n8n: N8nInstance | undefined;
  const stop = async () => {
    await n8n?.stop();
    await sim?.close();
    await rm(userFolder, { recursive: true, force: true });
  };
  try {
    [sim] = await Promise.all([startSimulator({ demo: true }), installPackedPackage(userFolder)]);
    n8n = await startN8n({ userFolder, logName });
    return { userFolder, sim, n8n, client: await ownerClient(n8n), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** How long an end-to-end file may take to start (the simulator, the packed package, n8n). */
export const E2E_SETUP_MS = 8 * 60_000;

/** A test file's end-to-end set-up, read once its beforeAll has run. */
export interface E2eSuite extends Pick<E2eSetup, 'sim' | 'n8n' | 'client'> {
  /** A call of the simulator's admin surface; its JSON answer. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

/**
 * startE2e for the test file that calls it (at its top, before its own hooks): started in a beforeAll,
 * stopped in an afterAll; reading a field before the start throws.
 */
export function useE2e(logName: string): E2eSuite {
  let setup: E2eSetup | undefined;
  beforeAll(async () => {
    setup = await startE2e(logName);
  }, E2E_SETUP_MS);
  afterAll(() => setup?.stop(), 60_000);
  const started = (): E2eSetup => {
    if (!setup) throw new Error(`the end-to-end set-up (${logName}) has not started`);
    return setup;
  };
  return {
    get sim() {
      return started().sim;
    },
    get n8n() {
      return started().n8n;
    },
    get client() {
      return started().client;
    },
    admin: <T = unknown,>(method: string, path: string, body?: unknown) =>
      simAdmin<T>(started().sim, method, path, body),
  };
}

export async function makeUserFolder(): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'sk-n8n-e2e-'));
}

/**
 * A headless Chromium page logged in to `n8n` as its owner (the editor's own /rest/login), for the
 * editor checks and screenshots. Close the browser when done.
 */
export async function openEditor(
  n8n: Pick<N8nInstance, 'url' | 'owner'>,
  viewport?: { width: number; height: number },
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ baseURL: n8n.url, ...(viewport ? { viewport } : {}) });
    const page = await context.newPage();
    const login = await page.request.post('/rest/login', {
      data: { emailOrLdapLoginId: n8n.owner.email, password: n8n.owner.password },
    });
    if (login.status() !== 200) throw new Error(`n8n refused the owner's login (${login.status()})`);
    return { browser, page };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
