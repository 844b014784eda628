// The domain operations the platform needs (demo listings, seeded listings, admin orders and likes),
// loaded on first use so the platform starts even where a domain module is missing. Signatures are the
// ones agreed with the domain handlers' authors.
import type { ProductCreateRequest } from '@selling-kit/api-client/core';
import type { SimulatorConfig } from '../config.ts';
import type { EventSink } from '../handlers/types.ts';
import type { OrderRecord, ProductRecord, SellerState, World } from '../state.ts';
import { ApiError } from '../errors.ts';

export interface DomainOps {
  createListing(
    world: World,
    config: SimulatorConfig,
    seller: SellerState,
    body: ProductCreateRequest,
    opts: { now: number; skipPictureFetch?: boolean },
  ): Promise<ProductRecord>;
  createOrder(
    world: World,
    seller: SellerState,
    productIds: number[],
    opts: { now: number; buyerId?: number; events: EventSink },
  ): OrderRecord;
  likeProduct(
    world: World,
    seller: SellerState,
    productId: number,
    likerId: number,
    opts: { now: number; events: EventSink },
  ): unknown;
}

let cached: Promise<Partial<DomainOps>> | undefined;

async function load(): Promise<Partial<DomainOps>> {
  const tryImport = async (rel: string): Promise<Record<string, unknown>> => {
    try {
      return (await import(new URL(rel, import.meta.url).href)) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const [products, orders] = await Promise.all([
    tryImport('../domain/products.ts'),
    tryImport('../domain/orders.ts'),
  ]);
  return {
    createListing: products.createListing as DomainOps['createListing'] | undefined,
    likeProduct: products.likeProduct as DomainOps['likeProduct'] | undefined,
    createOrder: orders.createOrder as DomainOps['createOrder'] | undefined,
  };
}

/** The named domain operation, or a 501 ApiError when its module does not provide it. */
export async function domainOp<K extends keyof DomainOps>(name: K): Promise<DomainOps[K]> {
  cached ??= load();
  const fn = (await cached)[name];
  if (typeof fn !== 'function') {
    throw new ApiError(501, 'generic_error', `the simulator's domain does not provide ${name} yet`);
  }
  return fn as DomainOps[K];
}
