// Starts one Temporal dev server (the CLI built by scripts/setup.sh) for every test of this package.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const freePort = () =>
  new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

export default async function globalSetup() {
  const bin = process.env.TEMPORAL_CLI_PATH;
  if (!bin)
    throw new Error(
      'TEMPORAL_CLI_PATH is not set: run `source scripts/env.sh` (scripts/setup.sh builds the Temporal CLI)',
    );
  const [port, uiPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'sk-temporal-'));
  const server = spawn(
    bin,
    [
      'server',
      'start-dev',
      ...['--db-filename', join(dir, 'temporal.db'), '--ip', '127.0.0.1', '--port', String(port)],
      ...['--ui-port', String(uiPort), '--headless', '--log-level', 'error'],
      // Update-with-start (the lanes and the app budget); on by default in recent servers, explicit here.
      ...['--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true'],
      // The search attributes jobs carry (src/search-attributes.ts).
      ...['SellingKitShop', 'SellingKitJobId', 'SellingKitOperation'].flatMap((n) => [
        '--search-attribute',
        `${n}=Keyword`,
      ]),
    ],
    { stdio: 'ignore' },
  );
  globalThis.__TEMPORAL_SERVER__ = server;
  const address = `127.0.0.1:${port}`;
  process.env.TEMPORAL_TEST_ADDRESS = address;
  // Ready when the server answers and the default namespace exists (the CLI asks; no SDK runtime is
  // loaded into jest's own process, which would keep it from exiting).
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await run(bin, ['operator', 'namespace', 'describe', '--namespace', 'default', '--address', address], {
        timeout: 5000,
      });
      return;
    } catch (e) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`Temporal dev server did not start: ${e}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
