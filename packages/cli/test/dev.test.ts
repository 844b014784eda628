// The main job: `selling-kit dev` on the embedded defaults (reusing the test Temporal server), and
// Ctrl-C stopping everything it started.
// @needs temporal
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, readLines, runCli } from './helpers.ts';

describe('selling-kit dev', () => {
  it('starts the stack, runs the demo bulk listing, prints the report, counts and the UI address', async () => {
    const ctx = cliEnv();
    const r = await runCli(
      ctx,
      [
        '--json',
        'dev',
        '--sim-port',
        '0',
        '--ui-port',
        '18299',
        '--codec-port',
        '0',
        '--exit-when-done',
        '--no-n8n',
        // The test Temporal server answers already (dev refuses one it did not start unless told).
        '--use-running-temporal',
      ],
      {
        timeoutMs: 180_000,
      },
    );
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ state: 'finished', total: 300, ok: 287, failed: 2, invalid: 11 });
    expect(r.json.report).toBe(join(ctx.home, 'reports', `${r.json.jobId}.ndjson`));
    // The report as exported when the job ended, read by the worker from its job store: the dev
    // stack's own, under <home>/dev.
    expect(readLines(readFileSync(r.json.report, 'utf8'))).toHaveLength(300);
    expect(existsSync(join(ctx.home, 'dev', 'jobs'))).toBe(true);
    expect(r.json.ui).toContain('/namespaces/default/workflows/bulk%3A');
  }, 240_000);

  it('Ctrl-C stops the simulator and the worker cleanly', async () => {
    const ctx = cliEnv();
    let simUrl: string | undefined;
    const r = await runCli(
      ctx,
      [
        'dev',
        '--no-job',
        '--sim-port',
        '0',
        '--ui-port',
        '18298',
        '--codec-port',
        '0',
        '--no-n8n',
        '--use-running-temporal',
      ],
      {
        timeoutMs: 120_000,
        onStderr: (text, child) => {
          simUrl ??= /simulator:\s+(http:\/\/\S+)/.exec(text)?.[1];
          if (text.includes('Ctrl-C stops everything') && !child.killed) child.kill('SIGINT');
        },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('stopping the embedded stack');
    expect(simUrl).toBeDefined();
    await expect(fetch(`${simUrl}/api/v1/shop/`)).rejects.toThrow();
  }, 240_000);
});
