// `pnpm chaos`: the chaos run of issue 10 §4 on a stack of its own (Temporal dev server with a data
// file, simulator, two worker processes): bulk creates under faults, worker kills, a server restart, a
// 429 storm, a poison item and a cancel at a run hand-off. Prints per-shop figures; exits 1 on any
// loss, duplicate, misreport, poison item not failed or cancel not honoured (2 on bad options).
//   node scripts/chaos.ts [--items 2000] [--shops 3] [--scale 1] [--no-kill] [--no-restart] [--json] …
import { formatChaos, parseChaosArgs } from '../packages/temporal-workflows/chaos/cli.ts';
import { runChaos } from '../packages/temporal-workflows/chaos/scenario.ts';

let parsed;
try {
  parsed = parseChaosArgs(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const result = await runChaos(parsed.options);
console.log(parsed.json ? JSON.stringify(result, null, 2) : formatChaos(result));
process.exit(result.failures.length ? 1 : 0);
