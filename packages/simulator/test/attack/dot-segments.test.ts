// Attack (L2), the server's side: a request whose path holds a dot-segment (`.`, `..`, or one written with
// `%2e`) — sent raw, as a client that does not normalise URLs would — is never routed to another path
// (`PUT /api/v1/products/by-sku/../` is not `PUT /api/v1/products/`) nor to the listing whose SKU reads
// `..`: the simulator answers 400 naming the rule, and no listing changes.
import { request } from 'node:http';
import { startShop, validListing } from '../../src/testing.ts';
import { createListing } from '../../src/domain/products.ts';

type Shop = Awaited<ReturnType<typeof startShop>>;
let shop: Shop;
beforeAll(async () => {
  shop = await startShop();
});
afterAll(() => shop.close());

/** One raw HTTP request (the path sent byte for byte, never normalised); its status and body. */
function raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
  const url = new URL(shop.sim.url);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: {
          authorization: `Bearer ${shop.apiKey}`,
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const seller = () => shop.sim.world.sellers.get(shop.sellerId)!;

describe('attack: dot-segments in request paths', () => {
  it.each([
    ['PUT', '/api/v1/products/by-sku/../'],
    ['PUT', '/api/v1/products/by-sku/%2e%2e/'],
    ['PUT', '/api/v1/products/by-sku/%2E./'],
    ['DELETE', '/api/v1/products/by-sku/./'],
    ['DELETE', '/api/v1/products/by-sku/%2e/'],
    ['POST', '/api/v1/products/by-sku/../mark-as-sold/'],
    ['GET', '/api/v1/products/by-sku/%2e%2E/'],
  ])('%s %s is refused with 400, no listing touched', async (method, path) => {
    // A listing whose SKU reads `..` must not be reachable that way either.
    for (const sku of ['..', '.', 'KEEP-1'])
      if (![...seller().products.values()].some((p) => p.sku === sku))
        await createListing(shop.sim.world, shop.sim.config, seller(), validListing({ sku }) as never, {
          now: shop.sim.world.clock.now(),
          skipPictureFetch: true,
        });
    const before = JSON.stringify([...seller().products.values()]);
    const res = await raw(method, path, method === 'PUT' ? validListing({ sku: 'X' }) : undefined);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      errors: [
        { code: 'bad-request', message: 'a path segment is a dot-segment ("." or ".."): not a dot-segment' },
      ],
    });
    expect(JSON.stringify([...seller().products.values()])).toBe(before);
  });
});
