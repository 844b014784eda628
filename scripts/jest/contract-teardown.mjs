// Jest global teardown: checks every exchange the simulator recorded during the run against the
// generated OpenAPI document (packages/api-client/scripts/contract-check.ts) and fails the run on a
// violation. Runs the checker as a Node process (Node 24 strips its types; jest does not load .ts here).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ENV = 'SELLING_KIT_CONTRACT_DIR'; // CONTRACT_DIR_ENV in packages/api-client/src/openapi/contract.ts (this file is loaded untransformed)
const checker = fileURLToPath(
  new URL('../../packages/api-client/scripts/contract-check.ts', import.meta.url),
);

export default function contractTeardown() {
  const dir = process.env[ENV];
  if (!dir || dir === '0') return;
  const run = spawnSync(process.execPath, [checker, dir], { encoding: 'utf8' });
  process.stdout.write(`\n${run.stdout}${run.stderr}`);
  if (run.status !== 0) throw new Error(`the contract check failed (recordings kept in ${dir})`);
  rmSync(dir, { recursive: true, force: true });
}
