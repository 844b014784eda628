// Attacks on D1 through the CLI: `selling-kit keys issue` hands a client a scoped key (printed once,
// recorded 0600, never listed); a CLI acting as that client (SELLING_KIT_CLIENT_KEY) cannot start a
// delete job on a shop the key does not name, nor use the key once retired. `selling-kit worker`, the
// simulator, a real Temporal server: 0 listings touched.
// @needs temporal
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { cliStackPerFile, readLines } from '../helpers.ts';

// Two shop names for the demo seller's key: what the client may name is the question, not whose key.
const stack = cliStackPerFile({ DEMO_KEY: 'pak_demo_selling_kit' }, { a: 'DEMO_KEY', b: 'DEMO_KEY' });
/** The demo seller's listings, as the simulator holds them (a delete or a sale would change this). */
const listings = () => JSON.stringify([...stack.sim.world.sellers.get(1001)!.products.values()]);

describe('attack: a scoped client key through the CLI', () => {
  let credential: string;

  it('`keys issue` prints one credential line, records the key 0600; `keys list` never shows it', async () => {
    const issued = await stack.cli(['keys', 'issue', '--id', 'cli-a', '--shops', 'a']);
    expect(issued.code).toBe(0);
    expect(readLines(issued.stdout)).toHaveLength(1);
    credential = issued.stdout.trim();
    expect(credential).toMatch(/^skc1\.cli-a\./);
    const file = join(stack.ctx.home, 'client-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const listed = await stack.cli(['--json', 'keys', 'list']);
    expect(listed.json).toEqual([expect.objectContaining({ id: 'cli-a', shops: 'a', retiredAt: '' })]);
    expect(listed.stdout).not.toContain(credential.split('.')[3]!.slice(0, 16));
  }, 60_000);

  it('a delete job on shop b with a key for a: refused by the worker, 0 listings touched', async () => {
    const before = listings();
    expect(stack.sim.world.sellers.get(1001)!.products.size).toBeGreaterThan(0);
    const feed = join(stack.ctx.home, 'attack.csv');
    writeFileSync(feed, 'sku\nDEMO-1\n');
    const r = await stack.cli(['bulk', feed, '--shop', 'b', '--op', 'delete', '--no-check'], {
      env: { SELLING_KIT_CLIENT_KEY: credential },
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('client key cli-a may not name shop b');
    expect(listings()).toBe(before);
  }, 120_000);

  it('a retired key: refused, 0 listings touched', async () => {
    expect((await stack.cli(['keys', 'retire', 'cli-a'])).code).toBe(0);
    const before = listings();
    const feed = join(stack.ctx.home, 'attack2.csv');
    writeFileSync(feed, 'sku\nDEMO-1\n');
    const r = await stack.cli(['bulk', feed, '--shop', 'a', '--op', 'delete', '--no-check'], {
      env: { SELLING_KIT_CLIENT_KEY: credential },
    });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/client key cli-a was retired on /);
    expect(listings()).toBe(before);
  }, 120_000);

  it('a malformed SELLING_KIT_CLIENT_KEY: a usage error that never prints it', async () => {
    const bad = 'skc1.x.y.not-really-a-key-material';
    const r = await stack.cli(['--json', 'jobs', 'status', 'no-such-job'], {
      env: { SELLING_KIT_CLIENT_KEY: bad },
    });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('bad_client_key');
    expect(r.stdout + r.stderr).not.toContain('not-really-a-key-material');
  }, 60_000);
});
