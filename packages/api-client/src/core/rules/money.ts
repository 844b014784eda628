// Money on the wire is a decimal string with at most two decimals. Rules compare integer cents so no
// float rounding can let a price through that the service would refuse.
import { MONEY_PATTERN } from '../schemas/common.ts';

/** "12.5" → 1250; null when not a non-negative decimal string with at most 2 decimals. */
export function parseMoney(value: unknown): number | null {
  if (typeof value !== 'string' || !MONEY_PATTERN.test(value)) return null;
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 100 + Number(frac.padEnd(2, '0'));
}

/** 1250 → "12.50" */
export function formatMoney(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0)
    throw new RangeError(`cents must be a non-negative integer, got ${cents}`);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** True when `amountCents` is at least `percent`% below `priceCents` (exact integer arithmetic). */
export function isAtLeastPercentBelow(amountCents: number, priceCents: number, percent: number): boolean {
  return amountCents * 100 <= priceCents * (100 - percent);
}

/** The largest amount that is still `percent`% below the price, for messages. */
export function maxAmountPercentBelow(priceCents: number, percent: number): number {
  return Math.floor((priceCents * (100 - percent)) / 100);
}
