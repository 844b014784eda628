// Attack tests of the feed policy's lower layer (activities/feed-policy.ts, feed-fetch.ts), called
// directly: addresses that embed an IPv4 address are classified by it, a path feed that is not a
// regular file (a FIFO, a directory) is refused without blocking, and a redirect's own body is never
// downloaded (its connection is closed at once, however long the body).
import { createServer, type Server, type IncomingMessage } from 'node:http';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { addressKind, feedPolicy, openConfinedFile } from '../../src/activities/feed-policy.ts';
import { fetchFeed } from '../../src/activities/feed-fetch.ts';

describe('addresses embedding an IPv4 address are classified by it', () => {
  it.each([
    ['::ffff:0:127.0.0.1', 'loopback'], // IPv4-translated (RFC 2765)
    ['::ffff:0:169.254.169.254', 'link-local'],
    ['::ffff:0:10.1.2.3', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['64:ff9b:1::7f00:1', 'loopback'], // local-use NAT64 (RFC 8215)
    ['64:ff9b:1::169.254.169.254', 'link-local'],
    ['64:ff9b:1::c0a8:101', 'private'],
    ['64:ff9b:1:7f00:0:100::', 'reserved'], // an IPv4 address elsewhere in the /48: not told apart
    ['::ffff:0:8.8.8.8', 'public'],
    ['64:ff9b:1::808:808', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe('path feeds: regular files only', () => {
  const root = mkdtempSync(join(tmpdir(), 'sk-attack-confine-'));
  const policy = feedPolicy({ roots: [root] });
  const fifo = join(root, 'feed.csv');
  execFileSync('mkfifo', [fifo]);
  // Should the open block (the defect), a writer releases it so the run can end.
  afterAll(() => {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting
    }
  });

  it('a FIFO inside a root is refused at once, not waited on', async () => {
    await expect(openConfinedFile(policy, fifo)).rejects.toMatchObject({
      message: `the feed ${fifo} is not a regular file (a FIFO)`,
      type: 'FeedRefused',
      nonRetryable: true,
    });
  });

  it('a directory inside a root is refused', async () => {
    const dir = join(root, 'dir.csv');
    mkdirSync(dir);
    await expect(openConfinedFile(policy, dir, 'the SKU map')).rejects.toMatchObject({
      message: `the SKU map ${dir} is not a regular file (a directory)`,
      type: 'FeedRefused',
    });
  });

  it('a regular file inside a root is opened and read', async () => {
    const path = join(root, 'fine.csv');
    writeFileSync(path, 'sku\nA-1\n');
    const { file, real } = await openConfinedFile(policy, path);
    try {
      expect(real).toBe(path);
      expect(await file.readFile('utf8')).toBe('sku\nA-1\n');
    } finally {
      await file.close();
    }
  });
});

describe('redirects: the redirect’s own body is never downloaded', () => {
  let server: Server;
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('a 302 with an endless body is followed and its connection closed', async () => {
    let redirectClosed!: () => void;
    const closed = new Promise<void>((r) => (redirectClosed = r));
    server = createServer((req: IncomingMessage, res) => {
      if (req.url === '/target') return void res.end('sku\nA-1\n');
      req.socket.on('close', redirectClosed);
      res.on('error', () => {}); // the client hanging up mid-body is the point
      res.writeHead(302, { location: '/target' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const policy = feedPolicy({ allowLoopbackHttp: true });
    const res = await fetchFeed(
      policy,
      new URL(`${base}/redirect`),
      undefined,
      new AbortController().signal,
      (u) => u.href,
    );
    expect(res.statusCode).toBe(200);
    res.setEncoding('utf8');
    let body = '';
    for await (const chunk of res) body += chunk as string;
    expect(body).toBe('sku\nA-1\n');
    // The server sees the redirect's connection close (with res.resume() it would stream forever).
    await closed;
  });
});
