// The SKU mapping file of the delist flow: for items whose SKU differs between connected shops. A JSON
// array with one object per item, shop id → that shop's SKU:
//   [{ "demo": "TEE-1", "demo-us": "US-TEE-1" }, { "shop-a": "J-2", "shop-b": "JEANS-2" }]
// A sale of TEE-1 on "demo" marks US-TEE-1 sold on "demo-us"; shops an entry does not name, and SKUs no
// entry names, use the same SKU. Read by the worker's activity (re-read when the file changes) and
// checked by `selling-kit webhooks serve` before it starts. The path comes with the flow's input, so the
// worker reads it only inside its feed roots (feed-policy.ts, the same rule as path feeds).
import { readFileSync } from 'node:fs';
import { openConfinedFile, type FeedPolicy } from '../activities/feed-policy.ts';

export class SkuMapError extends Error {
  readonly code = 'invalid_sku_map';
  constructor(message: string) {
    super(message);
    this.name = 'SkuMapError';
  }
}

export interface SkuMap {
  /** The SKU of the item `sourceSku` of `sourceShopId` on `targetShopId`. */
  skuOn(sourceShopId: string, sourceSku: string, targetShopId: string): string;
  /** Items the file names. */
  readonly size: number;
}

const key = (shopId: string, sku: string) => `${shopId}\u0000${sku}`;

/** Checks and indexes a parsed mapping; errors name the entry, the shop and the rule. */
export function parseSkuMap(value: unknown, source = 'SKU map'): SkuMap {
  if (!Array.isArray(value))
    throw new SkuMapError(`${source}: must be a JSON array of objects (shop id → SKU), got ${typeof value}`);
  const index = new Map<string, Record<string, string>>();
  value.forEach((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new SkuMapError(`${source}: entry ${i} must be an object (shop id → SKU)`);
    const pairs = Object.entries(entry as Record<string, unknown>);
    if (pairs.length < 2)
      throw new SkuMapError(`${source}: entry ${i} must name at least two shops (one item on several shops)`);
    for (const [shopId, sku] of pairs) {
      if (typeof sku !== 'string' || sku.trim() === '')
        throw new SkuMapError(`${source}: entry ${i}, shop "${shopId}": the SKU must be a non-empty string`);
      const k = key(shopId, sku);
      if (index.has(k))
        throw new SkuMapError(
          `${source}: entry ${i}, shop "${shopId}": SKU "${sku}" is already mapped by an earlier entry`,
        );
      index.set(k, entry as Record<string, string>);
    }
  });
  return {
    size: value.length,
    skuOn: (sourceShopId, sourceSku, targetShopId) =>
      index.get(key(sourceShopId, sourceSku))?.[targetShopId] ?? sourceSku,
  };
}

/** Reads a mapping file (a missing or unreadable file is an error naming the path, never a silent no-op). */
export function loadSkuMap(path: string): SkuMap {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new SkuMapError(`SKU map ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new SkuMapError(`SKU map ${path}: not valid JSON (${(e as Error).message})`);
  }
  return parseSkuMap(value, `SKU map ${path}`);
}

/**
 * The worker's reader of mapping files: a path inside `policy`'s roots only (else the policy's refusal,
 * an ApplicationFailure), at most `policy.maxBytes`; cached per path until the file's modification time
 * or size changes.
 */
export function createSkuMapCache(policy: FeedPolicy): (path: string) => Promise<SkuMap> {
  const cache = new Map<string, { stamp: string; map: SkuMap }>();
  return async (path) => {
    let opened;
    try {
      opened = await openConfinedFile(policy, path, 'the SKU map');
    } catch (e) {
      if (!(e as NodeJS.ErrnoException).code) throw e; // refused by the policy
      throw new SkuMapError(`SKU map ${path}: cannot be read (${(e as NodeJS.ErrnoException).code})`);
    }
    const { file } = opened;
    try {
      const s = await file.stat();
      const stamp = `${s.mtimeMs}:${s.size}`;
      const hit = cache.get(path);
      if (hit && hit.stamp === stamp) return hit.map;
      if (s.size > policy.maxBytes)
        throw new SkuMapError(`SKU map ${path}: larger than ${policy.maxBytes} bytes`);
      let value: unknown;
      try {
        value = JSON.parse(await file.readFile('utf8'));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code)
          throw new SkuMapError(`SKU map ${path}: cannot be read (${(e as NodeJS.ErrnoException).code})`);
        throw new SkuMapError(`SKU map ${path}: not valid JSON (${(e as Error).message})`);
      }
      const map = parseSkuMap(value, `SKU map ${path}`);
      cache.set(path, { stamp, map });
      return map;
    } finally {
      await file.close();
    }
  };
}
