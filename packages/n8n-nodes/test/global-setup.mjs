// Builds and packs this package once for the whole test run (the published tarball, unpacked), so the
// package checks and the real-n8n tests read the same files and never race on rebuilding dist/.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

export default async function globalSetup() {
  await run('pnpm', ['run', 'build'], { cwd: PACKAGE_DIR, maxBuffer: 64 * 1024 * 1024 });
  const packDir = mkdtempSync(join(tmpdir(), 'sk-n8n-pack-'));
  await run('pnpm', ['pack', '--pack-destination', packDir], {
    cwd: PACKAGE_DIR,
    maxBuffer: 64 * 1024 * 1024,
  });
  const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball into ${packDir}`);
  const extracted = join(packDir, 'package');
  await run('mkdir', ['-p', extracted]);
  await run('tar', ['-xzf', join(packDir, tarball), '-C', extracted, '--strip-components=1']);
  // Read by test/package.test.mts and test/e2e/harness.mts.
  process.env.SELLING_KIT_E2E_PACKAGE_DIR = extracted;
}
