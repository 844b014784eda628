// The run's own webhook receiver: a small HTTP server that keeps every delivery's exact bytes and
// headers (the signature is over the raw body) and answers 200 at once, as the public reference asks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  /** The body exactly as received. */
  raw: Buffer;
  /** Parsed JSON, when it parses. */
  event?: { id?: string; event_type?: string; data?: Record<string, unknown> };
  receivedAt: number;
}

export interface Receiver {
  /** The URL to register with the service. */
  url: string;
  deliveries: Delivery[];
  /** The first delivery (past or future) matching `match`, or undefined after `timeoutMs`. */
  waitFor(
    match: (d: Delivery) => boolean,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Delivery | undefined>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const isLoopbackUrl = (url: URL) => LOOPBACK.has(url.hostname);

/**
 * Listens on `listen` (host and port; port 0 = any free one). `publicUrl` is what the service posts to
 * (a tunnel's URL on staging); without it the receiver's own loopback URL is used, with `path`.
 */
export async function startReceiver(opts: {
  host: string;
  port: number;
  path: string;
  publicUrl?: string;
}): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (req.method !== 'POST') return;
      const raw = Buffer.concat(chunks);
      let event: Delivery['event'];
      try {
        event = JSON.parse(raw.toString('utf8')) as Delivery['event'];
      } catch {
        event = undefined;
      }
      deliveries.push({ headers: req.headers, raw, event, receivedAt: Date.now() });
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: opts.publicUrl ?? `http://${host}:${port}${opts.path}`,
    deliveries,
    async waitFor(match, timeoutMs, signal) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = deliveries.find(match);
        if (found || Date.now() >= deadline || signal?.aborted) return found;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, Math.max(1, deadline - Date.now()));
          waiters.add(done);
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
