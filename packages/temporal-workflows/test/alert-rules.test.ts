// What deploy/prometheus ships (issue 27 §3). The alert rules (alerts.yml): Prometheus's own checker
// accepts them (`promtool check rules`), their unit tests pass (`promtool test rules alerts.test.yml`:
// series → the alerts expected, and none for a fresh worker whose counters are all at 0), every alert
// has a case that fires, and every metric a rule reads exists: the kit's (metric-names.ts), the SDK's
// that the worker-health test sees on a worker's /metrics (sdk-metric-names.ts), the Temporal server's
// counters (its metric_defs.go, in the module scripts/setup-temporal-server.sh builds from) and
// Prometheus's `up`. prometheus.yml passes `promtool check config` and scrapes the jobs the rules name;
// the dashboard reads only existing metrics and shows every kit counter. promtool is built by
// scripts/setup-promtool.sh (setup.sh with SELLING_KIT_TOPOLOGY=1).
// @needs topology
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { KIT_COUNTERS, PACING_WAIT_METRIC } from '../src/observability/metric-names.ts';
import { SDK_METRICS } from './sdk-metric-names.ts';

const run = promisify(execFile);
const dir = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));
const rulesFile = join(dir, 'alerts.yml');
const testsFile = join(dir, 'alerts.test.yml');

/** Prometheus's own series. */
const PROMETHEUS_METRICS = ['up'];

function promtool(): string {
  const bin = process.env.SELLING_KIT_PROMTOOL;
  if (!bin || !existsSync(bin))
    throw new Error(
      `SELLING_KIT_PROMTOOL=${bin ?? 'unset'}: build promtool with scripts/setup-promtool.sh (setup.sh does with SELLING_KIT_TOPOLOGY=1)`,
    );
  return bin;
}

/** The Temporal server's metric definitions (go.temporal.io/server common/metrics/metric_defs.go). */
function serverMetricDefs(): string {
  const src = process.env.SELLING_KIT_TEMPORAL_SERVER_SRC;
  const file = src && join(src, 'common/metrics/metric_defs.go');
  if (!file || !existsSync(file))
    throw new Error(
      `SELLING_KIT_TEMPORAL_SERVER_SRC=${src ?? 'unset'}: run scripts/setup-temporal-server.sh (setup.sh does with SELLING_KIT_TOPOLOGY=1)`,
    );
  return readFileSync(file, 'utf8');
}

interface Rule {
  alert: string;
  expr: string;
}
const rules = (): Rule[] =>
  (parse(readFileSync(rulesFile, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);

const PROMQL_WORDS = new Set(
  'sum by without rate increase absent and or unless offset count max min avg on ignoring bool histogram_quantile'.split(
    ' ',
  ),
);

/** The metric names an expression reads: identifiers outside selectors, ranges, strings and `by (…)`. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/(by|without|on|ignoring)\s*\([^)]*\)/g, ' ');
  return [...new Set([...bare.matchAll(/\b([a-zA-Z_][a-zA-Z0-9_]*)\b/g)].map((m) => m[1]!))].filter(
    (w) => !PROMQL_WORDS.has(w),
  );
}

describe('alert rules (deploy/prometheus/alerts.yml)', () => {
  it('promtool checks them and their unit tests pass', async () => {
    const bin = promtool();
    const check = await run(bin, ['check', 'rules', rulesFile]);
    expect(check.stdout).toContain(`SUCCESS: ${rules().length} rules found`);
    // Run from the folder: alerts.test.yml names alerts.yml relatively, as an operator runs it.
    const tests = await run(bin, ['test', 'rules', 'alerts.test.yml'], { cwd: dir });
    expect(tests.stdout).toContain('SUCCESS');
  }, 60_000);

  it('every alert has a unit test in which it fires', () => {
    const doc = parse(readFileSync(testsFile, 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      doc.tests.flatMap((t) =>
        t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname),
      ),
    );
    expect(
      rules()
        .map((r) => r.alert)
        .filter((a) => !firing.has(a)),
    ).toEqual([]);
  });

  it('reads only metrics that exist: the kit counters, the SDK gauge, the server counters, up', () => {
    const kit = new Set<string>(KIT_COUNTERS.map((c) => c.name));
    const defs = serverMetricDefs();
    const unknown = rules()
      .flatMap((r) => metricNames(r.expr).map((name) => ({ alert: r.alert, name })))
      .filter(({ name }) => {
        if (name.startsWith('selling_kit_')) return !kit.has(name);
        if ((SDK_METRICS as readonly string[]).includes(name) || PROMETHEUS_METRICS.includes(name))
          return false;
        return !defs.includes(`"${name}"`);
      });
    expect(unknown).toEqual([]);
    // The kit's counters the issue names are each watched.
    const read = new Set(rules().flatMap((r) => metricNames(r.expr)));
    // Each topic of the issue is watched: a job paused, 429s, verification rounds, re-authorisation, no
    // poller (the workers' and the server's view), schedule misses.
    for (const name of [
      'selling_kit_job_pauses',
      'selling_kit_rate_limited',
      'selling_kit_verification_rounds',
      'selling_kit_token_refreshes',
      'temporal_num_pollers',
      'no_poller_tasks',
      'schedule_missed_catchup_window',
    ])
      expect(read).toContain(name);
  });
});

describe('Prometheus configuration and dashboard (deploy/prometheus)', () => {
  it('prometheus.yml passes promtool and scrapes the jobs the rules select', async () => {
    const check = await run(promtool(), ['check', 'config', join(dir, 'prometheus.yml')]);
    expect(check.stdout).toContain('is valid prometheus config file syntax');
    const config = parse(readFileSync(join(dir, 'prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: { job_name: string }[];
    };
    expect(config.rule_files).toContain('alerts.yml');
    const jobs = config.scrape_configs.map((c) => c.job_name);
    const selected = new Set(
      rules().flatMap((r) => [...r.expr.matchAll(/job="([^"]+)"/g)].map((m) => m[1]!)),
    );
    expect([...selected].filter((j) => !jobs.includes(j))).toEqual([]);
    expect(jobs).toEqual(expect.arrayContaining(['selling-kit-worker', 'temporal-server']));
  }, 60_000);

  it('the dashboard reads only existing metrics and shows every kit counter beside the SDK', () => {
    const dashboard = JSON.parse(readFileSync(join(dir, 'dashboard.json'), 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const read = new Set(exprs.flatMap(metricNames));
    const known = new Set<string>([
      ...KIT_COUNTERS.map((c) => c.name),
      `${PACING_WAIT_METRIC.name}_bucket`,
      ...SDK_METRICS,
      ...PROMETHEUS_METRICS,
    ]);
    expect([...read].filter((name) => !known.has(name))).toEqual([]);
    for (const { name } of KIT_COUNTERS) expect(read).toContain(name);
    expect([...read].filter((name) => name.startsWith('temporal_')).length).toBeGreaterThan(3);
  });
});
