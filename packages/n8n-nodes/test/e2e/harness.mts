// Harness of the real-n8n end-to-end tests: packs this package the way it is published, installs it
// into a throw-away n8n user folder as a community package, starts n8n 2.40.7 (installed by
// scripts/setup-n8n.sh) on free loopback ports with an owner made from env, and talks to its REST and
// public APIs. Nothing here prints secrets: n8n's output goes to a log file under test-output/.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

const run = promisify(execFile);

export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const PACKAGE_NAME: string = JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')).name;
export const OUTPUT_DIR = join(PACKAGE_DIR, 'test-output');
export const N8N_VERSION = process.env.SELLING_KIT_N8N_VERSION ?? '2.40.7';

/** n8n's bin script, from scripts/setup-n8n.sh's cache (fails loudly when it is missing). */
export function n8nBin(): string {
  const cache = process.env.SELLING_KIT_CACHE ?? join(homedir(), '.cache', 'selling-kit');
  const bin =
    process.env.SELLING_KIT_N8N_BIN ?? join(cache, `n8n-${N8N_VERSION}`, 'node_modules', 'n8n', 'bin', 'n8n');
  if (!existsSync(bin) || !existsSync(join(dirname(bin), '..', '..', '..', '.installed'))) {
    throw new Error(
      `n8n ${N8N_VERSION} is not installed at ${bin}: run "bash scripts/setup-n8n.sh" (setup.sh does it)`,
    );
  }
  return bin;
}

/** A port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return await new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
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
  process: ChildProcess;
  stop(): Promise<void>;
}

/** bcrypt hash with the bcryptjs that ships inside n8n (the owner's password is set from env). */
function bcryptHash(password: string, bin: string): string {
  const require = createRequire(bin);
  const bcrypt = require('bcryptjs') as { hashSync(p: string, rounds: number): string };
  return bcrypt.hashSync(password, 10);
}

/**
 * Starts `n8n start` on free ports in a fresh user folder; resolves once /healthz/readiness answers 200.
 * A second attempt on new ports covers a port taken between choosing it and n8n binding it.
 */
export async function startN8n(options: {
  userFolder: string;
  logName?: string;
  readyTimeoutMs?: number;
}): Promise<N8nInstance> {
  try {
    return await startN8nOnce(options);
  } catch (error) {
    if (!/exited/.test((error as Error).message)) throw error;
    return await startN8nOnce({ ...options, logName: `retry-${options.logName ?? 'n8n.log'}` });
  }
}

async function startN8nOnce(options: {
  userFolder: string;
  logName?: string;
  readyTimeoutMs?: number;
}): Promise<N8nInstance> {
  const bin = n8nBin();
  const [port, brokerPort] = [await freePort(), await freePort()];
  const owner = {
    email: 'e2e-owner@selling-kit.test',
    password: `E2e-${randomBytes(12).toString('hex')}-Pw1`,
  };
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const logFile = join(OUTPUT_DIR, options.logName ?? 'n8n.log');
  const log = createWriteStream(logFile);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    N8N_USER_FOLDER: options.userFolder,
    N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
    DB_TYPE: 'sqlite',
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
    WEBHOOK_URL: undefined,
    N8N_WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
    N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_DYNAMIC_BANNERS_ENABLED: 'false',
    N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
    EXTERNAL_FRONTEND_HOOKS_URLS: '',
    N8N_AI_ENABLED: 'false',
    N8N_SECURE_COOKIE: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
    N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
    N8N_INSTANCE_OWNER_EMAIL: owner.email,
    N8N_INSTANCE_OWNER_FIRST_NAME: 'E2E',
    N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
    N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password, bin),
    N8N_LOG_LEVEL: 'info',
    N8N_LOG_OUTPUT: 'console',
    NODE_ENV: 'production',
    // Inherited from jest: not for n8n.
    NODE_OPTIONS: undefined,
  };
  const child = spawn(process.execPath, [bin, 'start'], {
    cwd: options.userFolder,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: stop() ends n8n and its task-runner children together.
    detached: true,
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = `n8n exited (code ${code}, signal ${signal})`;
  });

  const url = `http://127.0.0.1:${port}`;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 20_000);
      await gone;
      clearTimeout(timer);
    }
    signalGroup('SIGKILL'); // leftovers of the group (task runner), if any
    log.end();
  };
  try {
    await waitFor(
      'n8n readiness',
      async () => {
        if (exited) throw new Error(`${exited}; see ${logFile}`);
        const res = await fetch(`${url}/healthz/readiness`, { signal: AbortSignal.timeout(5_000) });
        return res.status === 200 ? true : undefined;
      },
      options.readyTimeoutMs ?? 240_000,
      1_000,
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- last lines of ${logFile} ---\n${tail(logFile, 30)}`);
  }
  return { url, port, userFolder: options.userFolder, logFile, owner, process: child, stop };
}

export function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A session on n8n's REST API (cookie from /rest/login) plus a public-API key. */
export class N8nClient {
  readonly url: string;
  private cookie = '';
  private apiKey = '';

  constructor(url: string) {
    this.url = url;
  }

  async login(email: string, password: string): Promise<void> {
    const res = await fetch(`${this.url}/rest/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ emailOrLdapLoginId: email, password }),
    });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
    if (!cookie) throw new Error('login answered without an n8n-auth cookie');
    this.cookie = cookie.split(';')[0] ?? '';
  }

  async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/rest${path}`, {
      method,
      headers: { cookie: this.cookie, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /rest${path} → ${res.status} ${text.slice(0, 500)}`);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  }

  /** Creates a public-API key with every scope the owner may grant. */
  async createApiKey(): Promise<void> {
    const scopes = await this.rest<string[]>('GET', '/api-keys/scopes');
    const key = await this.rest<{ rawApiKey: string }>('POST', '/api-keys', {
      label: `e2e-${randomUUID().slice(0, 8)}`,
      scopes,
      expiresAt: null,
    });
    this.apiKey = key.rawApiKey;
  }

  async api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/api/v1${path}`, {
      method,
      headers: { 'X-N8N-API-KEY': this.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /api/v1${path} → ${res.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
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

  async executions(workflowId: string): Promise<Execution[]> {
    const page = await this.api<{ data: Execution[] }>(
      'GET',
      `/executions?workflowId=${workflowId}&includeData=true&limit=100`,
    );
    return page.data;
  }
}

export interface NodeRun {
  data?: { main?: ({ json: Record<string, unknown> }[] | null)[] };
  error?: { message?: string };
}

export interface Execution {
  id: string;
  finished: boolean;
  status: string;
  mode: string;
  startedAt: string;
  data?: { resultData?: { runData?: Record<string, NodeRun[]>; error?: { message?: string } } };
}

/** JSON of the items a node output in an execution (first run, first output). */
export function nodeOutput(execution: Execution, nodeName: string): Record<string, unknown>[] {
  const runs = execution.data?.resultData?.runData?.[nodeName];
  if (!runs?.length) throw new Error(`node "${nodeName}" did not run in execution ${execution.id}`);
  return (runs[0]?.data?.main?.[0] ?? []).map((item) => item.json);
}

export async function makeUserFolder(): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'sk-n8n-e2e-'));
}

/** Debian's Chromium (scripts/setup-n8n.sh installs it), headless, with no traffic of its own. */
export const CHROMIUM = process.env.SELLING_KIT_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

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
