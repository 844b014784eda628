// A gateway's sliding log for the pure pacing tests: the most requests any window saw.

/** The most requests any window of `windowMs` saw (sorted or not). */
export function maxInAnyWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (t[i]! - t[j]! >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
