// A valid listing body and helpers shared by the products and offers tests.
import type { TestShop } from '../helpers.ts';

export function listing(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sku: 'TEE-1',
    address: { country_code: 'GB' },
    description: 'Vintage Nike tee, boxy fit #nike',
    price_currency: 'GBP',
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: 'https://img.example/1.jpg' }],
    department: 'menswear',
    product_type: 'tshirts',
    size_set_id: 44,
    size_id: 18,
    condition: 'used_good',
    brand_name: 'Nike',
    ...over,
  };
}

export function putBody(over: Record<string, unknown> = {}): Record<string, unknown> {
  const { sku: _sku, ...rest } = listing(over);
  return { attributes: {}, ...rest };
}

export async function createProduct(shop: TestShop, over: Record<string, unknown> = {}) {
  const res = await shop.call('POST', '/api/v1/products/', listing(over));
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as { product_id: number; slug: string; sku: string | null };
}

/** The error code of a response (the service's envelope). */
export const codeOf = (res: { body: { errors?: { code: string }[] } }) => res.body.errors?.[0]?.code;
