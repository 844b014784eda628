// A free port on 127.0.0.1: for the simulator's users (the CLI's dev stack, tests) that start servers of
// their own next to it. Public (`@selling-kit/simulator`) and re-exported by ./testing for the tests.
import { createServer } from 'node:net';

/** A port free on 127.0.0.1 right now (nothing holds it: another process may still take it first). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
