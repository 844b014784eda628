// `pnpm chaos`: the chaos scenarios (packages/temporal-workflows/chaos/suite.ts), each on a stack of its
// own — one-host (issue 10 §4: bulk creates under faults, worker kills, a server restart, a 429 storm, a
// poison item, a cancel at a run hand-off), two-host (issue 21 §1: two workers on private disks, the
// native topology, the job store in PostgreSQL, then local stores) and unreachable (issue 21 §2). Prints
// each scenario's figures and a summary of duplicates, misreported, lost and missing report lines; exits 1
// on any failure (2 on bad options).
//   node scripts/chaos.ts [--one-host] [--two-host] [--unreachable] [--items 2000] [--json] …  (--help)
import { parseChaosArgs } from '../packages/temporal-workflows/chaos/cli.ts';
import { formatSuite } from '../packages/temporal-workflows/chaos/printout.ts';
import { runSuite } from '../packages/temporal-workflows/chaos/suite.ts';

let parsed;
try {
  parsed = parseChaosArgs(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const result = await runSuite(parsed);
console.log(parsed.json ? JSON.stringify(result, null, 2) : formatSuite(result));
process.exit(result.failures.length ? 1 : 0);
