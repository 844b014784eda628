// What every chaos scenario sets up the same way: CSV feeds of distinct SKUs (each item its own SKU, so
// the audit can match feed, listings and report by SKU), shops with an API key in the simulator, and a
// simulator whose create handler logs every create that reaches the API (past the gateway's faults).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addAddress, createApiKey, createSeller, startSimulator } from '@selling-kit/simulator';
import type { Handler, RunningSimulator, SimulatorConfigOverrides } from '@selling-kit/simulator';
import { handlers as simulatorHandlers } from '../../simulator/src/handlers/index.ts';
import type { FeedLine } from './audit.ts';
import type { FaultedRunOptions } from './run-log.ts';

export const FEED_HEADER =
  'sku,description,price_amount,price_currency,quantity,national_shipping_cost,pictures,department,product_type,condition,brand_name,country_code';
export const feedRow = (sku: string, i: number) =>
  `${sku},Chaos tee ${i} #nike,${20 + (i % 7)}.00,GBP,1,3.50,https://img.example/${i}.jpg,menswear,tshirts,used_good,Nike,GB`;

/**
 * `<dir>/<name>.csv`: `n` items `<prefix>-1…n`, and a poison item `<prefix>-POISON` before item
 * `poisonAt` when given. Returns its path and its lines as the audit reads them.
 */
export function writeFeed(dir: string, name: string, prefix: string, n: number, poisonAt?: number) {
  const lines: FeedLine[] = [];
  const rows: string[] = [];
  for (let i = 0; i < n; i++) {
    if (poisonAt === i) {
      lines.push({ line: lines.length + 1, sku: `${prefix}-POISON`, poison: true });
      rows.push(feedRow(`${prefix}-POISON`, i));
    }
    lines.push({ line: lines.length + 1, sku: `${prefix}-${i + 1}` });
    rows.push(feedRow(`${prefix}-${i + 1}`, i));
  }
  const path = join(dir, `${name}.csv`);
  writeFileSync(path, [FEED_HEADER, ...rows].join('\n') + '\n');
  return { path, lines };
}

/** A create that reached the API: when (real ms), for which seller, which SKU. */
export interface Send {
  at: number;
  sellerId: number;
  sku: string;
}

/** The simulator (port 0, no picture fetches) with every create that reaches the API logged in `sends`. */
export async function startLoggedSimulator(
  config: SimulatorConfigOverrides,
): Promise<{ sim: RunningSimulator; sends: Send[] }> {
  const sends: Send[] = [];
  const create = simulatorHandlers['products.create']!;
  const logged: Handler = (ctx) => {
    const sku = (ctx.body as { sku?: unknown } | undefined)?.sku;
    sends.push({ at: Date.now(), sellerId: ctx.seller.id, sku: typeof sku === 'string' ? sku : '' });
    return create(ctx);
  };
  const sim = await startSimulator({
    port: 0,
    config: { fetchPictures: false, ...config },
    handlers: { 'products.create': logged },
  });
  return { sim, sends };
}

/** The simulator of a scenario with faults: its time scale, read-after-create delay and fault seed. */
export const startFaultedSimulator = (o: FaultedRunOptions) =>
  startLoggedSimulator({ timeScale: o.scale, readAfterCreateDelayMs: o.readAfterCreateMs, seed: o.seed });

/** A seller with an address and an API key: its id, and its credential for credentials.json. */
export function createShop(sim: RunningSimulator, username: string, partnerId: string) {
  const seller = createSeller(sim.world, { username });
  addAddress(sim.world, seller);
  return {
    sellerId: seller.id,
    credential: { baseUrl: sim.url, apiKey: createApiKey(sim.world, partnerId, seller.id).key },
  };
}

/** The listings a seller holds now, as the audit reads them. */
export const listingsOf = (sim: RunningSimulator, sellerId: number) =>
  [...sim.world.sellers.get(sellerId)!.products.values()].map((p) => ({
    sku: p.sku,
    productId: p.productId,
  }));
