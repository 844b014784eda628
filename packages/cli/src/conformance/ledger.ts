// The run's own listings: every SKU a probe may create is written here BEFORE the request that could
// create it is sent, and clean-up deletes exactly these SKUs (never anything found by listing the shop).
// All of them start with the run's prefix `skc-<run id>-`.
import { randomBytes } from 'node:crypto';
import { SKU_MAX_LENGTH } from '@selling-kit/api-client/core';

/** `skc-` + 8 base-36 characters + `-`: unique per run, 13 characters of the SKU's 50. */
export function newRunId(): string {
  const n = randomBytes(8).readBigUInt64BE();
  return n.toString(36).padStart(8, '0').slice(-8);
}

export const skuPrefix = (runId: string) => `skc-${runId}-`;

export interface LedgerEntry {
  sku: string;
  /** The product id the service gave it, when a create or a read told us. */
  productId?: number;
  /** The service said it exists (a create/PUT answered 2xx, or a read found it). */
  existed: boolean;
}

export class Ledger {
  readonly prefix: string;
  private readonly entries = new Map<string, LedgerEntry>();

  constructor(runId: string) {
    this.prefix = skuPrefix(runId);
  }

  /** A SKU of this run, recorded before use. `pad` fills it to that length (for the SKU-length probes). */
  sku(label: string, pad?: number): string {
    let sku = this.prefix + label;
    if (pad !== undefined) sku = sku.padEnd(pad, 'x');
    else if (sku.length > SKU_MAX_LENGTH) throw new Error(`conformance SKU too long: ${sku}`);
    if (!this.entries.has(sku)) this.entries.set(sku, { sku, existed: false });
    return sku;
  }

  /** The service confirmed the listing exists (with its product id, when known). */
  existed(sku: string, productId?: number): void {
    const entry = this.entries.get(sku);
    if (!entry) throw new Error(`SKU ${sku} is not one of this run's`);
    entry.existed = true;
    if (productId !== undefined) entry.productId = productId;
  }

  owns(sku: string): boolean {
    return this.entries.has(sku);
  }

  all(): LedgerEntry[] {
    return [...this.entries.values()];
  }
}
