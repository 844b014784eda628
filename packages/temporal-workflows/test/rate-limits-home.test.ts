// The rate limits have one home, the client core's table (api-client/src/core/rate-limits.ts): the
// durable jobs' pacing and app budget derive from it, and no source file writes an allowance out by hand.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APP_WIDE_LIMIT, RATE_LIMITS } from '@selling-kit/api-client/rate-limits';
import { APP_WIDE_ALLOWANCE } from '../src/workflows/app-budget.ts';
import { DEFAULT_ALLOWANCES, SALES_RESERVE } from '../src/workflows/pacing.ts';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const HOME = 'packages/api-client/src/core/rate-limits.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.m?ts$/.test(name) ? [path] : [];
  });
}

describe('the rate limits: one home', () => {
  it("holds the spec's numbers (workflow code paces by them: a change is a workflow release)", () => {
    expect(RATE_LIMITS).toEqual({
      create_update: { limit: 200, windowMs: 10_000 },
      insights: { limit: 600, windowMs: 300_000 },
      general: { limit: 6_000, windowMs: 60_000 },
    });
    expect(APP_WIDE_LIMIT).toEqual({ limit: 30_000, windowMs: 60_000 });
    expect(DEFAULT_ALLOWANCES.general.limit).toBe(5_700);
  });

  it('bulk jobs pace by the core table, less the sales reserve of the general group', () => {
    expect(DEFAULT_ALLOWANCES.create_update).toEqual(RATE_LIMITS.create_update);
    expect(DEFAULT_ALLOWANCES.general).toEqual({
      windowMs: RATE_LIMITS.general.windowMs,
      limit: Math.floor(RATE_LIMITS.general.limit * (1 - SALES_RESERVE)),
    });
    expect(DEFAULT_ALLOWANCES.general.limit).toBeLessThan(RATE_LIMITS.general.limit);
  });

  it('the app budget hands out the core app-wide limit', () => {
    expect(APP_WIDE_ALLOWANCE).toEqual(APP_WIDE_LIMIT);
  });

  it('no source file outside the core writes an allowance (limit and window) by hand', () => {
    // `{ limit: 200, windowMs: 10_000 }` and the like: a number of requests beside a window length.
    const literal =
      /limit:\s*[\d_]+\s*,\s*windowMs:\s*[1-9][\d_]*|windowMs:\s*[1-9][\d_]*\s*,\s*limit:\s*[\d_]+/;
    const sources = [
      'api-client/src',
      'simulator/src',
      'temporal-workflows/src',
      'cli/src',
      'n8n-nodes/nodes',
    ];
    const offenders = sources
      .flatMap((dir) => sourceFiles(join(REPO, 'packages', dir)))
      .map((path) => relative(REPO, path))
      .filter((path) => path !== HOME && literal.test(readFileSync(join(REPO, path), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
