// `selling-kit dev` with n8n (2.40.7, installed by scripts/setup-n8n.sh): the first run imports and
// activates the example workflows, and the demo's sale and like execute them; a second run on the same
// home reuses everything (no duplicates, the password not shown again), and while it runs n8n's API and
// a headless Chromium see the workflows (the screenshot in docs/); Ctrl-C stops n8n. `--no-n8n` and a
// missing install start no n8n and the rest of the stack runs.
// @needs temporal, n8n, browser
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { N8nApi, type N8nExecution } from '../src/n8n/api.ts';
import { findN8nBin } from '../src/n8n/install.ts';
import { readExamples } from '../src/n8n/provision.ts';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, freePort } from '@selling-kit/simulator/testing';
import { cliEnv, runCli, type CliEnv } from './helpers.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SCREENSHOT = join(REPO, 'docs', 'n8n-editor.png');
const EXAMPLES = readExamples().map((w) => w.name);
const devArgs = (n8nPort: number, ...extra: string[]) => [
  'dev',
  '--sim-port',
  '0',
  '--codec-port',
  '0',
  '--n8n-port',
  String(n8nPort),
  // The test Temporal server answers already (dev refuses one it did not start unless told).
  '--use-running-temporal',
  ...extra,
];

let ctx: CliEnv;

beforeAll(() => {
  if (!findN8nBin()) throw new Error('n8n 2.40.7 is not installed: run `bash scripts/setup-n8n.sh`');
  ctx = cliEnv();
});

describe('selling-kit dev with n8n', () => {
  it('imports and activates the examples; the demo sale and like execute them', async () => {
    const r = await runCli(ctx, devArgs(0, '--ui-port', '18293', '--exit-when-done'), { timeoutMs: 400_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/n8n editor:\s+http:\/\/127\.0\.0\.1:\d+ \(starting/);
    // The owner's password: shown on this first run only, kept 0600.
    const ownerFile = join(ctx.home, 'dev', 'n8n-owner.json');
    const owner = JSON.parse(readFileSync(ownerFile, 'utf8')) as {
      email: string;
      password: string;
      apiKey: string;
    };
    expect(statSync(ownerFile).mode & 0o777).toBe(0o600);
    expect(r.stderr).toContain(`${owner.email} / ${owner.password} (shown this once`);
    expect(r.stderr).not.toContain(owner.apiKey);
    for (const name of EXAMPLES) expect(r.stderr).toContain(`workflow:    "${name}" active (imported now)`);
    expect(r.stderr).toMatch(
      /a sale of listing \d+ on "demo" → "Delist everywhere on sale" execution \d+: success/,
    );
    expect(r.stderr).toMatch(
      /liker \d+ liked listing \d+ on "demo" → "Offers to likers" execution \d+: success/,
    );
    // The Temporal demo still runs and prints as before.
    expect(r.stdout).toMatch(/job \S+ finished: 287 ok, 2 failed, 11 invalid/);
    expect(r.stderr).toMatch(
      /simulated purchase of DEMO-TEE-001 on "demo" → DEMO-TEE-001 marked sold on "demo-us"/,
    );
  }, 420_000);

  it('runs again on the same home; n8n shows the active, executed workflows; Ctrl-C stops n8n', async () => {
    const port = await freePort();
    let child: ChildProcess | undefined;
    let offerRuns: number[] = [];
    let signalReady: () => void = () => undefined;
    const ready = new Promise<void>((r) => (signalReady = r));
    const run = runCli(ctx, devArgs(port, '--ui-port', '18296', '--no-job'), {
      timeoutMs: 400_000,
      onStderr: (text, c) => {
        child = c;
        if (text.includes('Ctrl-C stops everything')) signalReady();
      },
    });
    await Promise.race([ready, run.then((r) => Promise.reject(new Error(`dev ended early:\n${r.stderr}`)))]);
    try {
      const owner = JSON.parse(readFileSync(join(ctx.home, 'dev', 'n8n-owner.json'), 'utf8')) as {
        email: string;
        password: string;
        apiKey: string;
      };
      const api = new N8nApi(`http://127.0.0.1:${port}`);
      api.apiKey = owner.apiKey;
      const workflows = await api.workflows();
      for (const name of EXAMPLES) {
        const found = workflows.filter((w) => w.name === name);
        expect(found).toHaveLength(1); // imported once, not again
        expect(found[0]!.active).toBe(true);
        const executions: N8nExecution[] = await api.executions(found[0]!.id);
        expect(executions.filter((e) => e.status === 'success').length).toBeGreaterThanOrEqual(1);
      }
      // The editor in headless Chromium, saved for the README.
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      try {
        const page = await (
          await browser.newContext({ baseURL: api.url, viewport: { width: 1280, height: 720 } })
        ).newPage();
        const login = await page.request.post('/rest/login', {
          data: { emailOrLdapLoginId: owner.email, password: owner.password },
        });
        expect(login.status()).toBe(200);
        // The executions list: both workflows, each run by the demo's sale or like, with its status.
        await page.goto('/home/executions', { waitUntil: 'domcontentloaded', timeout: 120_000 });
        for (const name of EXAMPLES)
          await page.getByText(name, { exact: true }).first().waitFor({ timeout: 120_000 });
        await page.waitForTimeout(1_000); // let the list settle
        mkdirSync(join(REPO, 'docs'), { recursive: true });
        await page.screenshot({ path: SCREENSHOT });
        const text = await page.locator('body').innerText();
        for (const name of EXAMPLES) expect(text).toContain(name);
      } finally {
        await browser.close();
      }
      // Read now, checked at the end (n8n stops with the stack).
      const offers = workflows.find((w) => w.name === 'Offers to likers')!;
      offerRuns = (
        await api.api<{ data: { data?: { resultData?: { runData?: Record<string, unknown[]> } } }[] }>(
          'GET',
          `/executions?workflowId=${offers.id}&includeData=true&status=success`,
        )
      ).data.map((e) => (e.data?.resultData?.runData?.['Send Offer 10% Off'] ?? []).length);
    } finally {
      child?.kill('SIGINT');
    }
    const r = await run;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('(password in ');
    expect(r.stderr).not.toContain('shown this once');
    expect(r.stderr).toMatch(
      new RegExp(`n8n editor http://127\\.0\\.0\\.1:${port}\\); Ctrl-C stops everything`),
    );
    expect(existsSync(SCREENSHOT)).toBe(true);
    // Ctrl-C stopped n8n too.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    // The like ended in an offer: the last node of "Offers to likers" ran in a successful execution.
    expect(offerRuns.some((n) => n > 0)).toBe(true);
  }, 420_000);

  it('--no-n8n starts no n8n; a missing install is a one-line hint and the stack runs', async () => {
    const port = await freePort();
    const none = cliEnv();
    const skipped = await runCli(
      none,
      devArgs(port, '--ui-port', '18295', '--no-job', '--exit-when-done', '--no-n8n'),
      {
        timeoutMs: 120_000,
      },
    );
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('embedded stack ready');
    expect(skipped.stderr).not.toMatch(/n8n/);
    expect(existsSync(join(none.home, 'dev', 'n8n'))).toBe(false);

    const missing = await runCli(none, devArgs(port, '--ui-port', '18294', '--no-job', '--exit-when-done'), {
      env: { SELLING_KIT_N8N_BIN: join(none.home, 'no-such-n8n') },
      timeoutMs: 120_000,
    });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toContain('embedded stack ready');
    expect(missing.stderr.split('\n').filter((l) => l.includes('n8n'))).toEqual([
      'n8n: not installed, the rest of the stack runs without it — install it once with `bash scripts/setup-n8n.sh` (~6 min), or pass --no-n8n',
    ]);
  }, 300_000);
});
