// Pacing state for one shop × rate group, kept by the workflow (deterministic, no I/O): how many
// requests the next window may carry. After a 429 the rate halves; each clean window wins back a tenth.
import type { Allowance } from '../types.ts';

export interface PacingState {
  limit: number;
  windowMs: number;
  rate: number;
}

export function initialPacing(allowance: Allowance): PacingState {
  return { limit: allowance.limit, windowMs: allowance.windowMs, rate: allowance.limit };
}

export function afterRateLimited(p: PacingState): PacingState {
  return { ...p, rate: Math.max(1, Math.floor(p.rate / 2)) };
}

export function afterCleanWindow(p: PacingState): PacingState {
  return { ...p, rate: Math.min(p.limit, p.rate + Math.max(1, Math.ceil(p.limit / 10))) };
}
