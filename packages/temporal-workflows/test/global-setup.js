// Starts one Temporal dev server (the CLI built by scripts/setup.sh) for every test of this package
// (and of the CLI's, whose jest config borrows this file); its address reaches the tests through
// TEMPORAL_TEST_ADDRESS. The server's flags live in src/testing.ts.
import { startDevServer } from '../src/testing.ts';

export default async function globalSetup() {
  const server = await startDevServer();
  globalThis.__TEMPORAL_SERVER__ = server;
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
}
