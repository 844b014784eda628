// Runs the probes in order and always cleans up: deletes every SKU of the run's ledger (and nothing
// else), checks each is gone, removes the run's webhook subscription. A probe that throws is a ✗ line,
// not the end of the run; a probe whose `needs` did not pass is "blocked"; Ctrl-C stops the probes and
// goes straight to the clean-up.
import { SellingApiError, type SellingClient } from '@selling-kit/api-client';
import type { ProbeContext } from './context.ts';
import type { Probe, ProbeResult, Verdict } from './probe.ts';

export interface CleanupReport {
  /** Listings of this run the service confirmed, by SKU. */
  created: number;
  /** Of those, confirmed gone (GET by SKU: 404) after the DELETE. */
  removed: number;
  /** SKUs of this run still readable (or not confirmed gone) after the clean-up. */
  left: string[];
  /** SKUs a DELETE was sent for (every SKU a probe may have created). */
  deletesSent: number;
  webhookSubscription?: { id: string; removed: boolean };
}

export interface Summary {
  total: number;
  ok: number;
  differs: number;
  blocked: number;
  skipped: number;
  interrupted: boolean;
}

export async function runProbes(
  ctx: ProbeContext,
  probes: readonly Probe[],
  onResult: (r: ProbeResult) => void = () => undefined,
): Promise<{ results: ProbeResult[]; interrupted: boolean }> {
  const results: ProbeResult[] = [];
  const passed = new Set<string>();
  const chosen = new Set(probes.map((p) => p.id));
  for (const probe of probes) {
    if (ctx.signal.aborted) return { results, interrupted: true };
    const line = (verdict: Verdict, answer: string): ProbeResult => ({
      id: probe.id,
      spec: probe.spec,
      expected: probe.expected,
      choice: probe.choice,
      answer,
      verdict,
      ok: verdict === 'ok',
    });
    let result: ProbeResult;
    const unavailable = probe.unavailable?.(ctx);
    const failedNeed = (probe.needs ?? []).find((id) => !passed.has(id));
    if (unavailable) result = line('skipped', unavailable);
    else if (failedNeed)
      result = line(
        'blocked',
        `not run: ${failedNeed} ${chosen.has(failedNeed) ? 'did not pass' : 'not selected'}`,
      );
    else {
      try {
        const check = await probe.run(ctx);
        // A probe cut short by Ctrl-C (a wait that ended early) says nothing about the service.
        if (ctx.signal.aborted) return { results, interrupted: true };
        result = line(check.ok ? 'ok' : 'differs', check.answer);
      } catch (e) {
        if (ctx.signal.aborted) return { results, interrupted: true };
        result = line('differs', `error: ${ctx.scrub(e instanceof Error ? e.message : String(e))}`);
      }
    }
    if (result.ok) passed.add(probe.id);
    results.push(result);
    onResult(result);
  }
  return { results, interrupted: false };
}

export function summarize(results: ProbeResult[], interrupted: boolean): Summary {
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  return {
    total: results.length,
    ok: count('ok'),
    differs: count('differs'),
    blocked: count('blocked'),
    skipped: count('skipped'),
    interrupted,
  };
}

/** What a call answered, for the clean-up: 'ok', 'gone' (404), or the error's code. */
async function outcome(fn: () => Promise<unknown>): Promise<'ok' | 'gone' | string> {
  try {
    await fn();
    return 'ok';
  } catch (e) {
    if (e instanceof SellingApiError) return e.status === 404 ? 'gone' : e.code;
    return String(e);
  }
}

/**
 * Deletes every SKU of the run's ledger by SKU (only those), then reads each back: a 404 is gone. A
 * listing whose product id our create was told is checked (and if need be deleted) by that id too, in
 * case its SKU path does not reach it.
 */
export async function cleanUp(
  ctx: ProbeContext,
  client: SellingClient,
  signal: AbortSignal,
): Promise<CleanupReport> {
  const report: CleanupReport = { created: 0, removed: 0, left: [], deletesSent: 0 };
  for (const entry of ctx.ledger.all()) {
    if (signal.aborted) {
      if (entry.existed) report.left.push(entry.sku);
      continue;
    }
    report.deletesSent++;
    await outcome(() => client.products.deleteBySku(entry.sku, {}, { signal }));
    let read = await outcome(() => client.products.getBySku(entry.sku, { signal }));
    if (read !== 'ok' && entry.productId !== undefined) {
      const id = entry.productId;
      read = await outcome(() => client.products.getByProductId(id, { signal }));
      if (read === 'ok') {
        await outcome(() => client.products.deleteByProductId(id, {}, { signal }));
        read = await outcome(() => client.products.getByProductId(id, { signal }));
      }
    }
    if (read === 'ok') ctx.ledger.existed(entry.sku);
    if (!entry.existed) continue;
    report.created++;
    if (read === 'gone') report.removed++;
    else report.left.push(entry.sku);
  }
  if (ctx.subscriptionId) {
    const id = ctx.subscriptionId;
    const removed = !signal.aborted && (await outcome(() => client.webhooks.delete(id, { signal }))) === 'ok';
    report.webhookSubscription = { id, removed };
  }
  return report;
}
