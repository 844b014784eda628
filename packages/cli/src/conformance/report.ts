// The conformance report: one JSON document for machines (`--json`), a table and a summary for people.
import { printableText, table } from '../output.ts';
import type { ProbeResult, Verdict } from './probe.ts';
import type { CleanupReport, Summary } from './runner.ts';

export interface ConformanceReport {
  runId: string;
  /** Every listing this run created has a SKU starting with it. */
  skuPrefix: string;
  target: { kind: 'embedded-simulator' | 'staging' | 'base-url'; baseUrl: string };
  probes: ProbeResult[];
  summary: Summary & { cleanup: CleanupReport };
}

export const MARK: Record<Verdict, string> = { ok: '✓', differs: '✗', blocked: '·', skipped: '–' };

/** One progress line (stderr, people only). */
export const progressLine = (r: ProbeResult) => `  ${MARK[r.verdict]} ${r.id}: ${printableText(r.answer)}`;

export function summaryLine(report: ConformanceReport): string {
  const s = report.summary;
  const c = s.cleanup;
  const parts = [
    `${s.ok} as expected`,
    `${s.differs} differ`,
    ...(s.blocked ? [`${s.blocked} blocked`] : []),
    ...(s.skipped ? [`${s.skipped} skipped`] : []),
  ];
  const hook = c.webhookSubscription
    ? `; webhook subscription ${c.webhookSubscription.removed ? 'removed' : `${c.webhookSubscription.id} NOT removed`}`
    : '';
  const left = c.left.length ? ` — LEFT: ${printableText(c.left.join(', '))}` : '';
  return `${s.interrupted ? 'interrupted: ' : ''}${parts.join(', ')} of ${s.total}; test listings: ${c.created} created, ${c.removed} removed${left}${hook}`;
}

export function humanReport(report: ConformanceReport): string[] {
  const rows = report.probes.map((r) => ({ ...r, ok: MARK[r.verdict] }));
  const lines = [
    `conformance of ${report.target.baseUrl} (${report.target.kind}), run ${report.runId}, SKUs ${report.skuPrefix}…`,
    '',
    table(rows, ['ok', 'id', 'expected', 'answer', 'choice']),
  ];
  const differing = report.probes.filter((r) => r.verdict === 'differs');
  if (differing.length) {
    lines.push('', 'Not as expected (the spec, or our choice, versus the answer):');
    for (const r of differing)
      lines.push(`  ✗ ${r.id}`, `      spec:   ${r.spec}`, `      answer: ${printableText(r.answer)}`);
  }
  lines.push('', summaryLine(report));
  return lines;
}
