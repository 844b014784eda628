// `pnpm chaos` runs these scenarios one after the other, each on a stack of its own, and sums each up in
// the figures issue 21 asks to be zero: duplicates, misreported, lost, missing report lines.
//   one-host     scenario.ts: crashes, a server restart, a 429 storm, a poison item and a cancel (issue 10)
//   two-host     two-host.ts: two workers on private disks, the job store in PostgreSQL, then local
//   unreachable  unreachable.ts: a shop whose API cannot be reached pauses; fixed and resumed, it finishes
import type { ShopAudit } from './audit.ts';
import { runChaos, type ChaosOptions, type ChaosResult } from './scenario.ts';
import { runTwoHost, type TwoHostOptions, type TwoHostResult } from './two-host.ts';
import { runUnreachable, type UnreachableOptions, type UnreachableResult } from './unreachable.ts';

export const SCENARIOS = ['one-host', 'two-host', 'unreachable'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface SuiteOptions {
  scenarios: ScenarioName[];
  oneHost: Partial<ChaosOptions>;
  twoHost: Partial<TwoHostOptions>;
  unreachable: Partial<UnreachableOptions>;
}

/** One line of the summary: a scenario (or a phase of one) and its four zeros. */
export interface SummaryRow {
  scenario: string;
  ok: boolean;
  items: number;
  duplicates: number;
  misreported: number;
  lost: number;
  missingLines: number;
  wallMs: number;
}

export interface SuiteResult {
  oneHost?: ChaosResult;
  twoHost?: TwoHostResult;
  unreachable?: UnreachableResult;
  summary: SummaryRow[];
  /** Every scenario's failures, prefixed with its name; a scenario that could not run says why. */
  failures: string[];
  wallMs: number;
}

const sum = (audits: ShopAudit[], key: 'duplicates' | 'misreported' | 'lost' | 'missingLines' | 'items') =>
  audits.reduce((n, a) => n + a[key], 0);

const row = (scenario: string, ok: boolean, audits: ShopAudit[], wallMs: number): SummaryRow => ({
  scenario,
  ok,
  items: sum(audits, 'items'),
  duplicates: sum(audits, 'duplicates'),
  misreported: sum(audits, 'misreported'),
  lost: sum(audits, 'lost'),
  missingLines: sum(audits, 'missingLines'),
  wallMs,
});

export async function runSuite(o: SuiteOptions): Promise<SuiteResult> {
  const t0 = Date.now();
  const out: SuiteResult = { summary: [], failures: [], wallMs: 0 };
  const broken = (scenario: string, e: unknown, startedAt: number) => {
    out.failures.push(`${scenario}: harness: ${(e as Error).message}`);
    out.summary.push(row(scenario, false, [], Date.now() - startedAt));
  };
  for (const name of SCENARIOS) {
    if (!o.scenarios.includes(name)) continue;
    const startedAt = Date.now();
    try {
      if (name === 'one-host') {
        const r = (out.oneHost = await runChaos(o.oneHost));
        const audits = [...r.shops, ...(r.cancel?.shop ? [r.cancel.shop] : [])];
        out.summary.push(row(name, r.failures.length === 0, audits, r.wallMs));
        out.failures.push(...r.failures.map((f) => `${name}: ${f}`));
      } else if (name === 'two-host') {
        const r = (out.twoHost = await runTwoHost(o.twoHost));
        for (const p of r.phases) {
          const mine = r.failures.some((f) => f.startsWith(`${p.phase}:`));
          out.summary.push(row(`two-host ${p.phase}`, !mine, [p], p.wallMs));
        }
        // Failures of no phase (isolation, harness) fail the scenario's first line.
        if (r.failures.some((f) => !r.phases.some((p) => f.startsWith(`${p.phase}:`))) && out.summary.length)
          out.summary.find((s) => s.scenario.startsWith('two-host'))!.ok = false;
        out.failures.push(...r.failures.map((f) => `${name}: ${f}`));
      } else {
        const r = (out.unreachable = await runUnreachable(o.unreachable));
        out.summary.push(row(name, r.failures.length === 0, [r], r.wallMs));
        out.failures.push(...r.failures.map((f) => `${name}: ${f}`));
      }
    } catch (e) {
      broken(name, e, startedAt);
    }
  }
  out.wallMs = Date.now() - t0;
  return out;
}
