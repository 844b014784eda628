// Every probe, in the order they run: later areas build on what earlier ones leave (the webhook listing
// is liked, offered on, then bought; refunds use that purchase; the rate-limit burst comes last, so no
// probe after it meets an exhausted allowance).
import { authProbes } from './auth.ts';
import { listProbes } from './list.ts';
import { autoOfferProbes, manualOfferProbes } from './offers.ts';
import type { Probe } from './probe.ts';
import { productProbes } from './products.ts';
import { rateLimitProbes } from './rate-limit.ts';
import { refundProbes } from './refunds.ts';
import { ruleProbes } from './rules.ts';
import { webhookPurchaseProbes, webhookSetupProbes } from './webhooks.ts';

export const PROBES: readonly Probe[] = [
  ...authProbes,
  ...productProbes,
  ...ruleProbes,
  ...listProbes,
  ...autoOfferProbes,
  ...webhookSetupProbes,
  ...manualOfferProbes,
  ...webhookPurchaseProbes,
  ...refundProbes,
  ...rateLimitProbes,
];

/**
 * The probes whose id starts with one of `prefixes` (`products`, `rules.sku`), plus every probe they
 * need or run after; all of them when `prefixes` is empty. Unknown prefixes are returned for the caller to report.
 */
export function selectProbes(prefixes: string[]): { probes: Probe[]; unknown: string[] } {
  if (prefixes.length === 0) return { probes: [...PROBES], unknown: [] };
  const byId = new Map(PROBES.map((p) => [p.id, p]));
  const chosen = new Set<string>();
  const add = (id: string) => {
    if (chosen.has(id)) return;
    chosen.add(id);
    const probe = byId.get(id);
    for (const need of [...(probe?.needs ?? []), ...(probe?.after ?? [])]) add(need);
  };
  const unknown: string[] = [];
  for (const prefix of prefixes) {
    const matches = PROBES.filter((p) => p.id === prefix || p.id.startsWith(prefix));
    if (matches.length === 0) unknown.push(prefix);
    for (const p of matches) add(p.id);
  }
  return { probes: PROBES.filter((p) => chosen.has(p.id)), unknown };
}
