// Jest global setup: turns the simulator's contract recording on for the whole run (test workers and the
// processes they spawn inherit the variable). An explicit SELLING_KIT_CONTRACT_DIR is kept; `=0` turns
// the check off.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ENV = 'SELLING_KIT_CONTRACT_DIR'; // CONTRACT_DIR_ENV in packages/api-client/src/openapi/contract.ts (this file is loaded untransformed)

export default function contractSetup() {
  if (process.env[ENV] === '0') return;
  process.env[ENV] ||= mkdtempSync(join(tmpdir(), 'sk-contract-'));
}
