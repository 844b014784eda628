// Money in the simulator: amounts are held in integer cents and leave as decimal strings with two
// decimals ("12.50"), as the wire schemas carry them; a carrier's price in another currency is converted
// at fixed rates. Orders, refunds, pricing and the shipping catalogue all count with these.
import { formatMoney, parseMoney } from '@selling-kit/api-client/core';

/** "12.5" / "-3.00" / 12.5 → cents; anything else (or more than 2 decimals) → null. */
export function toCents(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 100) : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const cents = parseMoney(text.startsWith('-') ? text.slice(1) : text);
  return cents === null ? null : text.startsWith('-') ? -cents : cents;
}

/** 1250 → "12.50"; -5 → "-0.05". */
export function formatCents(cents: number): string {
  const rounded = Math.round(cents);
  return rounded < 0 ? `-${formatMoney(-rounded)}` : formatMoney(rounded);
}

/**
 * SPEC GAP (exchange rates): a label is booked in the order's currency; a carrier priced in another
 * currency is converted at these fixed rates (units per GBP), rounded to a cent. Unknown currencies
 * are taken at par.
 */
export const UNITS_PER_GBP: Readonly<Record<string, number>> = { GBP: 1, USD: 1.25, EUR: 1.15, AUD: 1.9 };

export function convertCents(cents: number, from: string, to: string): number {
  if (from === to) return cents;
  return Math.round((cents / (UNITS_PER_GBP[from] ?? 1)) * (UNITS_PER_GBP[to] ?? 1));
}
