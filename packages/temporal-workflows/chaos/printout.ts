// The printout of `pnpm chaos`: each scenario's figures (the one-host scenario's own table is cli.ts's
// formatChaos), then one summary line per scenario with its four zeros and a verdict.
import { formatChaos, table } from './cli.ts';
import type { SuiteResult } from './suite.ts';
import type { PhaseFigures, TwoHostResult } from './two-host.ts';
import type { UnreachableResult } from './unreachable.ts';

const s1 = (ms: number) => (ms / 1000).toFixed(1);
const statuses = (byStatus: Record<string, number>) =>
  Object.entries(byStatus)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || 'none';

const phaseRow = (p: PhaseFigures) => [
  p.phase,
  p.state,
  String(p.items),
  String(p.listings),
  `${p.reportLines}/${p.distinctLines}`,
  String(p.duplicates),
  String(p.misreported),
  String(p.lost),
  String(p.missingLines),
  statuses(p.byStatus),
  String(p.timeouts),
  p.sendsPerItem.toFixed(2),
  s1(p.wallMs),
];

export function formatTwoHost(r: TwoHostResult): string {
  const o = r.options;
  const out = [
    `two-host: native topology (PostgreSQL, Temporal server on it), two workers each on a host of its own (mount namespace + tmpfs) — ${o.items} creates per job, ${o.timeoutAfterCommit * 100} % answered 504 after commit, read-after-create ${o.readAfterCreateMs / 1000} s simulated, time scale ×${o.scale}, seed ${o.seed}`,
    `  cluster up in ${r.clusterStartS.toFixed(1)} s; stack and logs: ${r.dir}`,
    ...r.isolation.map(
      (i) =>
        `  isolation (${i.when}; ${i.workers.join(', ')}): ${i.problems.length ? `FAILED: ${i.problems.join('; ')}` : 'each worker sees only its own disk'}`,
    ),
    '',
    table([
      [
        'phase',
        'state',
        'items',
        'listings',
        'lines/distinct',
        'dup',
        'misrep',
        'lost',
        'missing',
        'report',
        '504s',
        'sends/item',
        'wall s',
      ],
      ...r.phases.map(phaseRow),
    ]),
    '',
  ];
  for (const p of r.phases) {
    out.push(`${p.phase}: job store ${p.jobStore}`);
    if (p.viaTemporal)
      out.push(
        `  the report read through Temporal (a report workflow on any worker): ${p.viaTemporal.lines} lines, ${p.viaTemporal.differing} differing from the store's`,
      );
    for (const x of p.pauses) out.push(`  paused at ${x.at} s: ${x.reason ?? '(no reason)'}`);
    if (p.pausedWhileBothUp !== undefined)
      out.push(
        `  while both workers answered: ${p.pausedWhileBothUp ? 'paused as not shared' : 'no pause seen'}`,
      );
    if (p.stopped)
      out.push(
        `  ${p.stopped.worker} (its disk holds the job's data) stopped: the not-shared pause showed ${p.stopped.pausedAfter !== undefined ? `${p.stopped.pausedAfter.toFixed(1)} s later` : 'never'}`,
      );
    if (p.pausedAfter !== undefined)
      out.push(`  the not-shared pause showed ${p.pausedAfter.toFixed(1)} s after the job started`);
    if (p.sentAfterCancel !== undefined)
      out.push(`  creates after the cancel was acknowledged: ${p.sentAfterCancel}`);
    if (p.heldBy) out.push(`  the job's data is on the disk of: ${p.heldBy.join(', ') || 'no worker'}`);
  }
  for (const w of r.workers)
    if (w.crashes.length)
      out.push(`${w.name} exited on its own ${w.crashes.length} time(s): ${w.crashes.join('; ')}`);
  out.push('', 'events:', ...r.events.map((e) => `  ${e.at.toFixed(1).padStart(7)} s  ${e.what}`));
  out.push('', `wall time ${s1(r.wallMs)} s`);
  if (r.failures.length) out.push('', `FAILED (${r.failures.length}):`, ...r.failures.map((f) => `  ${f}`));
  return out.join('\n');
}

export function formatUnreachable(r: UnreachableResult): string {
  const out = [
    `unreachable: ${r.options.items} creates for a shop whose base URL is http://127.0.0.1:9; credential fixed and job resumed after the pause`,
    `  stack and logs: ${r.dir}`,
    r.pausedAfter !== undefined
      ? `  paused after ${r.pausedAfter.toFixed(1)} s (allowed ${r.options.pauseWithinMs / 1000} s): ${r.pauseReason}; then done ${r.atPause?.done}, failed ${r.atPause?.failed}, pending ${r.atPause?.pending}`
      : '  never paused',
    `  ${r.state}${r.reason ? ` (${r.reason})` : ''}${r.finishedAfterResume !== undefined ? ` ${r.finishedAfterResume.toFixed(1)} s after the resume` : ''}; listings ${r.listings}/${r.items}; report ${r.reportLines} lines (${r.distinctLines} distinct): ${statuses(r.byStatus)}; sends/item ${r.sendsPerItem.toFixed(2)}`,
    `  dup ${r.duplicates}, misrep ${r.misreported}, lost ${r.lost}, missing ${r.missingLines}`,
    '',
    'events:',
    ...r.events.map((e) => `  ${e.at.toFixed(1).padStart(7)} s  ${e.what}`),
  ];
  if (r.failures.length) out.push('', `FAILED (${r.failures.length}):`, ...r.failures.map((f) => `  ${f}`));
  return out.join('\n');
}

export function formatSuite(r: SuiteResult): string {
  const parts: string[] = [];
  if (r.oneHost) parts.push(formatChaos(r.oneHost));
  if (r.twoHost) parts.push(formatTwoHost(r.twoHost));
  if (r.unreachable) parts.push(formatUnreachable(r.unreachable));
  // A scenario that could not run has no printout of its own: its failure goes with the summary.
  const printed = [r.oneHost && 'one-host:', r.twoHost && 'two-host:', r.unreachable && 'unreachable:'];
  const unprinted = r.failures.filter((f) => !printed.some((p) => p && f.startsWith(p)));
  const summary = table([
    ['scenario', 'result', 'items', 'duplicates', 'misreported', 'lost', 'missing report lines', 'wall s'],
    ...r.summary.map((s) => [
      s.scenario,
      s.ok ? 'OK' : 'FAILED',
      String(s.items),
      String(s.duplicates),
      String(s.misreported),
      String(s.lost),
      String(s.missingLines),
      s1(s.wallMs),
    ]),
  ]);
  parts.push(
    [
      'summary:',
      summary,
      '',
      ...unprinted.map((f) => `  ${f}`),
      r.failures.length
        ? `FAILED: ${r.failures.length} failure(s) (listed under each scenario above)`
        : `OK: 0 duplicates, 0 misreported, 0 lost, 0 missing report lines in every scenario (${s1(r.wallMs)} s)`,
    ].join('\n'),
  );
  return parts.join(`\n\n${'='.repeat(100)}\n\n`);
}
