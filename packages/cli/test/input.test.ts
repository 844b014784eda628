// Bad input: each a clear message, a specific exit code, and nothing started or lost. Also shops (masked
// keys), --help with examples, and the OAuth loopback login.
// @needs temporal
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { authLoginArgs, EXAMPLE_FEED, readLines, cliStackPerFile, expectFailure } from './helpers.ts';

const KEY = 'pak_demo_selling_kit';

const stack = cliStackPerFile(
  { DEMO_KEY: KEY, WRONG_KEY: 'pak_wrong_0000000000000000' },
  { 'shop-i': 'DEMO_KEY' },
);

const products = () => [...stack.sim.world.sellers.get(1001)!.products.values()];
/** Characters a terminal would act on: controls other than newline and tab. */
const unprintable = (text: string) =>
  [...text].filter((ch) => {
    const c = ch.codePointAt(0)!;
    return (c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f);
  });

describe('bad input', () => {
  it('a missing feed file: exit 2, the path named, nothing started', async () => {
    const r = await stack.cli([
      '--json',
      'bulk',
      join(stack.ctx.home, 'nope.csv'),
      '--shop',
      'shop-i',
      '--op',
      'create',
    ]);
    expectFailure(r, 2, {
      code: 'feed_not_found',
      message: expect.stringContaining('nope.csv'),
    });
    expect(r.stderr).toContain('feed file not found');
  }, 240_000);

  it('a feed URL that answers 404 or cannot be reached: exit 2 naming it without its secrets, nothing started', async () => {
    const [header, first, second] = readFileSync(EXAMPLE_FEED, 'utf8').split('\n');
    const csv = [header, first, second].map((l) => l!.replace('SK-DEMO-', 'URL-')).join('\n') + '\n';
    // `/signed.csv` refuses HEAD as a presigned URL does (signed for GET only); the rest is 404.
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/signed.csv') && req.method === 'GET') res.writeHead(200).end(csv);
      else res.writeHead(req.url?.startsWith('/signed.csv') ? 403 : 404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const bulk = (url: string, jobId: string, ...more: string[]) =>
        stack.cli(['--json', 'bulk', url, '--shop', 'shop-i', '--op', 'create', '--job-id', jobId, ...more]);
      const missing = await bulk(`${base}/missing.csv?X-Amz-Signature=s3cr3t#frag`, 'url-404', '--detach');
      expectFailure(missing, 2, {
        code: 'feed_unavailable',
        message: `the feed URL ${base}/missing.csv?… answered 404 Not Found`,
      });
      const closed = await bulk('http://127.0.0.1:1/feed.csv', 'url-closed', '--detach');
      expect(closed.code).toBe(2);
      expect(closed.json.error.message).toMatch(
        /^the feed URL http:\/\/127\.0\.0\.1:1\/feed\.csv cannot be reached/,
      );
      // A user name and password are sent as the worker sends them (Basic), and never shown.
      const userinfo = await bulk(`http://someone:pa55word@127.0.0.1:1/feed.csv`, 'url-user', '--detach');
      expect(userinfo.code).toBe(2);
      for (const r of [missing, closed, userinfo]) {
        expect(r.stdout + r.stderr).not.toMatch(/s3cr3t|frag|someone|pa55word/);
        // Nothing was started.
        const id = r === missing ? 'url-404' : r === closed ? 'url-closed' : 'url-user';
        expect((await stack.cli(['--json', 'jobs', 'status', id])).code).toBe(4);
      }
      // A URL that refuses HEAD but serves GET is fine: the job runs.
      const signed = await bulk(`${base}/signed.csv?sig=abc`, 'url-ok');
      expect(signed.code).toBe(0);
      expect(signed.json).toMatchObject({ state: 'finished', total: 2, ok: 2 });
    } finally {
      server.close();
    }
  }, 240_000);

  it('a binary feed, or text the terminal would act on: escaped, short excerpts in the error (exit 2)', async () => {
    // What a spreadsheet (.xlsx is a zip) saved as .csv starts with, and a terminal escape sequence.
    const sheet = join(stack.ctx.home, 'sheet.csv');
    writeFileSync(
      sheet,
      Buffer.concat([
        Buffer.from('PK\x03\x04\x14\x00\x06\x00\x08\x00\x1b[2J\x1b]0;pwned\x07', 'latin1'),
        Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256)),
      ]),
    );
    // Text, not binary, with an escape sequence the JSON reader quotes in its error.
    const json = join(stack.ctx.home, 'escape.json');
    writeFileSync(json, `\x1b[2Jnot json ${'at all '.repeat(40)}\n`);
    const before = products().length;
    const binary = await stack.cli(['--json', 'bulk', sheet, '--shop', 'shop-i', '--op', 'create']);
    expectFailure(binary, 2, 'feed_unreadable');
    const excerpt = /starts with "(.*?)"\)?:/.exec(binary.json.error.message)?.[1];
    expect(excerpt).toMatch(/^PK\\x03\\x04\\x14\\x00/);
    expect(excerpt!.length).toBeLessThanOrEqual(41);
    const text = await stack.cli(['--json', 'bulk', json, '--shop', 'shop-i', '--op', 'create']);
    expectFailure(text, 2, 'feed_unreadable');
    expect(text.json.error.message).toMatch(/\\x1b\[2J/i);
    // Whatever the error, the printer escapes it: here a shop name typed with an escape sequence.
    const shop = await stack.cli(['--json', 'bulk', EXAMPLE_FEED, '--shop', '\x1b[2Jevil', '--op', 'create']);
    expect(shop.code).toBe(4);
    expect(shop.json.error.message).toMatch(/unknown shop "\\x1b\[2Jevil"/i);
    for (const r of [binary, text, shop]) {
      expect(r.stderr).toMatch(/^error: /);
      // Nothing but printable text, newlines and tabs.
      expect(unprintable(r.stdout + r.stderr)).toEqual([]);
    }
    expect(products().length).toBe(before);
  }, 240_000);

  it('a CSV that cannot be parsed (unclosed quote): exit 2 with the line, nothing sent', async () => {
    const feed = join(stack.ctx.home, 'broken.csv');
    const [header, first, second] = readFileSync(EXAMPLE_FEED, 'utf8').split('\n');
    writeFileSync(feed, [header, first, second, '"SK-OPEN,an unclosed quote,1.00'].join('\n') + '\n');
    const before = products().length;
    const r = await stack.cli(['--json', 'bulk', feed, '--shop', 'shop-i', '--op', 'create']);
    expectFailure(r, 2, 'feed_unreadable');
    expect(r.json.error.message).toMatch(/Quote Not Closed.*line/i);
    expect(products().length).toBe(before);
  }, 240_000);

  it('malformed CSV rows are reported one by one while every other row is listed: exit 3, nothing lost', async () => {
    const feed = join(stack.ctx.home, 'rows.csv');
    const lines = readFileSync(EXAMPLE_FEED, 'utf8').split('\n');
    const rows = lines.slice(1, 6).map((l) => l.replace(/SK-DEMO-/, 'MR-'));
    rows[1] = rows[1]!.split(',').slice(0, 4).join(','); // too few fields
    rows[3] = rows[3] + ',extra,fields'; // too many
    writeFileSync(feed, [lines[0], ...rows].join('\n') + '\n');
    const r = await stack.cli(['--json', 'bulk', feed, '--shop', 'shop-i', '--op', 'create']);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ state: 'finished', total: 5, ok: 3, invalid: 2 });
    const report = readLines(readFileSync(r.json.report, 'utf8')).map((l) => JSON.parse(l));
    expect(report.filter((i) => i.status === 'invalid').map((i) => [i.line, i.code])).toEqual([
      [2, 'malformed_row'],
      [4, 'malformed_row'],
    ]);
    expect(
      report
        .filter((i) => i.status === 'ok')
        .map((i) => i.line)
        .sort(),
    ).toEqual([1, 3, 5]);
  }, 240_000);

  it('an unknown shop: exit 4 with how to add it', async () => {
    const r = await stack.cli(['--json', 'bulk', EXAMPLE_FEED, '--shop', 'nobody', '--op', 'create']);
    expectFailure(r, 4, {
      code: 'unknown_shop',
      hint: expect.stringContaining('shops add nobody'),
    });
  }, 240_000);

  it('a wrong API key: refused when added, and a job for a shop stored with it never starts (exit 6)', async () => {
    const addBad = ['shops', 'add', 'bad', '--api-key-env', 'WRONG_KEY', '--base-url', stack.sim.url];
    const added = await stack.cli(['--json', ...addBad]);
    expectFailure(added, 6, 'credential_rejected');
    const forced = await stack.cli([...addBad, '--no-check']);
    expect(forced.code).toBe(0);
    const r = await stack.cli(['--json', 'bulk', EXAMPLE_FEED, '--shop', 'bad', '--op', 'create']);
    expect(r.code).toBe(6);
    expect(r.json.error.message).toMatch(/API key of shop "bad" was rejected.*401/);
    for (const out of [added, forced, r])
      expect(out.stdout + out.stderr).not.toContain('pak_wrong_0000000000000000');
    const jobs = await stack.cli(['--json', 'jobs', 'list']);
    expect(jobs.code).toBe(0);
  }, 240_000);

  it('Temporal unreachable: exit 5 with a hint, for jobs and for bulk', async () => {
    for (const args of [
      ['jobs', 'list'],
      ['bulk', EXAMPLE_FEED, '--shop', 'shop-i', '--op', 'create'],
    ]) {
      const r = await stack.cli(['--json', '--temporal', '127.0.0.1:1', ...args]);
      expectFailure(r, 5, {
        code: 'temporal_unreachable',
        hint: expect.stringContaining('selling-kit dev'),
      });
    }
  }, 240_000);

  it('usage errors exit 2; unknown jobs exit 4; --help shows examples', async () => {
    expect((await stack.cli(['bulk', EXAMPLE_FEED, '--shop', 'shop-i', '--op', 'explode'])).code).toBe(2);
    expect((await stack.cli(['bulk', EXAMPLE_FEED, '--op', 'create'])).code).toBe(2);
    const missing = await stack.cli(['--json', 'jobs', 'status', 'no-such-job']);
    expectFailure(missing, 4, 'job_not_found');
    const help = await stack.cli(['bulk', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('--op <operation>');
  }, 240_000);
});

describe('shops and sellers', () => {
  it('lists shops with masked keys; the key never reaches stdout', async () => {
    const r = await stack.cli(['--json', 'shops', 'list']);
    expect(r.code).toBe(0);
    expect(r.json).toEqual(
      expect.arrayContaining([expect.objectContaining({ shopId: 'shop-i', apiKey: 'pak_…_kit' })]),
    );
    expect(r.stdout).not.toContain(KEY);
  }, 240_000);

  it('auth login: PKCE through the loopback callback; tokens sealed, never printed', async () => {
    let opened = false;
    const r = await stack.cli(authLoginArgs('client_demo', stack.sim.url), {
      env: { SECRET: 'secret_demo' },
      onStderr: (text) => {
        const url = /^(http\S+oauth\/authorize\S+)$/m.exec(text)?.[1];
        if (!url || opened) return;
        opened = true;
        // Play the browser: the consent page approves and redirects to the loopback callback.
        void fetch(url, { redirect: 'manual' }).then((res) => fetch(res.headers.get('location')!));
      },
    });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ shop: 'seller-1001', baseUrl: stack.sim.url });
    const status = await stack.cli(['--json', 'auth', 'status']);
    expect(status.json).toEqual([
      expect.objectContaining({ shop: 'seller-1001', clientId: 'client_demo', accessToken: 'valid' }),
    ]);
    for (const out of [r, status]) expect(out.stdout).not.toMatch(/secret_demo|"accessToken":\s*"(?!valid)/);
    const sealed = readFileSync(join(stack.ctx.home, 'tokens.sealed'));
    expect(sealed.toString('latin1')).not.toContain('secret_demo');

    // A job for the connected seller runs on its OAuth tokens.
    const feed = join(stack.ctx.home, 'oauth.csv');
    const lines = readFileSync(EXAMPLE_FEED, 'utf8').split('\n');
    writeFileSync(
      feed,
      [lines[0], ...lines.slice(1, 4).map((l) => l.replace('SK-DEMO-', 'OA-'))].join('\n') + '\n',
    );
    const job = await stack.cli(['--json', 'bulk', feed, '--shop', 'seller-1001', '--op', 'create']);
    expect(job.code).toBe(0);
    expect(job.json).toMatchObject({ state: 'finished', ok: 3 });
  }, 240_000);
});
