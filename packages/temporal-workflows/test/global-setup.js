// Starts one Temporal dev server (the CLI built by scripts/setup.sh) for every test of this package.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
      'TEMPORAL_CLI_PATH is not set: run `source scripts/setup.sh` (it builds the Temporal CLI)',
    );
  const [port, uiPort] = [await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'sk-temporal-'));
  const server = spawn(
    bin,
    [
      'server',
      'start-dev',
      '--db-filename',
      join(dir, 'temporal.db'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--ui-port',
      String(uiPort),
      '--headless',
      '--log-level',
      'error',
      // The search attributes jobs carry (src/search-attributes.ts).
      ...['SellingKitShop', 'SellingKitJobId', 'SellingKitOperation'].flatMap((n) => [
        '--search-attribute',
        `${n}=Keyword`,
      ]),
    ],
    { stdio: 'ignore', detached: false },
  );
  globalThis.__TEMPORAL_SERVER__ = server;
  process.env.TEMPORAL_TEST_ADDRESS = `127.0.0.1:${port}`;
  const { Connection } = await import('@temporalio/client');
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const c = await Connection.connect({
        address: process.env.TEMPORAL_TEST_ADDRESS,
        connectTimeout: 1000,
      });
      await c.workflowService.getSystemInfo({});
      await c.close();
      return;
    } catch (e) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`Temporal dev server did not start: ${e}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
