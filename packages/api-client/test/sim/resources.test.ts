// The other resources against the simulator over real HTTP: offers, orders, refunds, shipping, shop,
// insights, pricing, webhooks, status and the escape hatch.
import {
  LocalValidationError,
  PRICING_COUNTRIES,
  SellerDetails,
  ValidationError,
  type Order,
} from '../../src/index.ts';
import { addAddress } from '@selling-kit/simulator';
import { PRICING_REQUEST } from '../helpers/scripted.ts';
import { createApiKey, createSeller, listing, shopPerFile } from '../helpers/sim.ts';

const shop = shopPerFile();

/** A listing bought by the test buyer; returns the order. */
async function sale(overrides = {}): Promise<{ order: Order; productId: number; sku: string }> {
  const body = listing(overrides);
  const { product_id } = await shop.client.products.create(body);
  const res = await shop.admin('POST', '/admin/orders', {
    sellerId: shop.sellerId,
    productIds: [product_id],
  });
  expect(res.status).toBe(201);
  const orders = await shop.client.orders.list({ limit: 200 }).toArray();
  const order = orders.find((o) => o.line_items.some((li) => li.product_id === product_id))!;
  return { order, productId: product_id, sku: body.sku! };
}

describe('offers', () => {
  it('submitBySku / submitByProductId / submitBySlug send manual offers to an interested buyer', async () => {
    const p = await shop.client.products.create(listing({ price_amount: '50.00' }));
    await shop.admin('POST', `/admin/products/${p.product_id}/likes`, { likerId: 5151 });
    const offer = { offer_recipient_id: 5151, offer_value: 40, offer_currency: 'GBP' };
    await shop.client.offers.submitBySku(p.sku!, offer);
    await shop.client.offers.submitByProductId(p.product_id, { ...offer, offer_value: 41 });
    await shop.client.offers.submitBySlug(p.slug, { ...offer, offer_value: 42 });
    const offers = (await shop.admin('GET', `/admin/sellers/${shop.sellerId}/offers`)).body as unknown[];
    expect(offers.length).toBeGreaterThanOrEqual(3);
  });

  it('setAutoOffers and setDiscount patch the listing', async () => {
    const p = await shop.client.products.create(listing({ price_amount: '50.00' }));
    await shop.client.offers.setAutoOffers(
      { sku: p.sku! },
      { auto_send_offer_price: '45.00', auto_negotiate_offer_price: '40.00' },
    );
    await shop.client.offers.setDiscount({ sku: p.sku! }, '48.00');
    const after = await shop.client.products.getBySku(p.sku!);
    expect(after).toMatchObject({
      auto_send_offer_price: '45.00',
      auto_negotiate_offer_price: '40.00',
      discount_price: '48.00',
    });
  });
});

describe('orders and refunds', () => {
  it('orders.list walks pages, orders.get reads one', async () => {
    const { order } = await sale();
    await sale();
    await sale();
    const pages: number[] = [];
    for await (const page of shop.client.orders.list({ limit: 1 }).pages()) pages.push(page.data.length);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const one = await shop.client.orders.get(order.purchase_id);
    expect(one).toMatchObject({ purchase_id: order.purchase_id, status: 'SHIPPING_PENDING' });
    expect(one.seller_fee_breakdown.length).toBeGreaterThan(0);
  });

  it('orders.markParcelShipped records tracking', async () => {
    const { order } = await sale();
    const parcelId = order.line_items[0]!.parcel_id;
    await shop.client.orders.markParcelShipped(order.purchase_id, parcelId, {
      tracking_number: 'GB123,GB456',
      carrier: 'Royal Mail',
    });
    expect((await shop.client.orders.get(order.purchase_id)).status).toBe('SHIPPED');
  });

  it('refunds.create refunds part of an order', async () => {
    const { order } = await sale({ price_amount: '30.00' });
    await shop.client.refunds.create(order.purchase_id, {
      items_refund_amount: '10.00',
      send_buyer_message: 'Sorry!',
    });
    const after = await shop.client.orders.get(order.purchase_id);
    expect(after.refund_summary).toBeDefined();
    expect(after.refund_summary!.breakdown.refunded_to_buyer.item_refund_amount).toBe('10.00');
  });

  it('refunds.create: the service holds the limits (each product’s price, summed); the client never refuses them first', async () => {
    const a = await shop.client.products.create(listing({ price_amount: '30.00' }));
    const b = await shop.client.products.create(listing({ price_amount: '20.00' }));
    const res = await shop.admin('POST', '/admin/orders', {
      sellerId: shop.sellerId,
      productIds: [a.product_id, b.product_id],
    });
    const purchaseId = (res.body as { purchaseId: string }).purchaseId;
    const over = await shop.client.refunds
      .create(purchaseId, { items_refund_amount: '50.01' })
      .catch((e: unknown) => e);
    expect(over).toBeInstanceOf(ValidationError);
    expect(over).not.toBeInstanceOf(LocalValidationError);
    expect(over).toMatchObject({ status: 422, code: 'validation' });
    expect((over as ValidationError).message).toContain(`product ${a.product_id} 30.00`);
    // Above either product's price, within both: accepted.
    await shop.client.refunds.create(purchaseId, { items_refund_amount: '45.00' });
    expect((await shop.client.orders.get(purchaseId)).status).toBe('SHIPPING_PENDING');
  });
});

describe('shop, shipping, insights, pricing', () => {
  it('shop.get and shop.listAddresses', async () => {
    const details = await shop.client.shop.get();
    expect(SellerDetails.parse(details)).toMatchObject({
      id: shop.sellerId,
      username: 'client-test-shop',
      country_code: 'GB',
    });
    const addresses = await shop.client.shop.listAddresses().toArray();
    expect(addresses.map((a) => a.id)).toContain(shop.addressId);
  });

  it('shipping.listProviders lists providers and parcel sizes of an address', async () => {
    const providers = await shop.client.shipping.listProviders(shop.addressId);
    expect(providers.length).toBeGreaterThan(0);
    expect(providers[0]!.parcel_sizes.length).toBeGreaterThan(0);
  });

  it('shipping follows the address’s country (US carriers in USD for a US address); a USD order’s label is in USD', async () => {
    const us = createSeller(shop.sim.world, { username: 'client-test-shop-us', countryCode: 'US' });
    const { key } = createApiKey(shop.sim.world, 'partner-client-test', us.id);
    const address = addAddress(shop.sim.world, us, { city: 'Austin', state: 'TX', postal_code: '73301' });
    const client = shop.clientWith({ apiKey: key });

    const providers = await client.shipping.listProviders(address.id);
    expect(providers.map((p) => p.id)).toEqual(['USPS', 'UPS']);
    const costs = providers.flatMap((p) => p.parcel_sizes.map((s) => s.cost.currency));
    expect(new Set(costs)).toEqual(new Set(['USD']));
    const gb = await shop.client.shipping.listProviders(shop.addressId);
    expect(gb.map((p) => p.id)).toEqual(['ROYAL_MAIL', 'EVRI']);

    const ups = providers.find((p) => p.id === 'UPS')!;
    const small = ups.parcel_sizes.find((s) => s.id === 'SMALL')!;
    const { national_shipping_cost: _manual, ...body } = listing({
      address: { country_code: 'US' },
      price_currency: 'USD',
    });
    const { product_id } = await client.products.create({
      ...body,
      depop_shipping: {
        address_id: address.id,
        shipping_provider_id: ups.id,
        parcel_size_id: small.id,
        payer: 'seller',
      },
    });
    const res = await shop.admin('POST', '/admin/orders', { sellerId: us.id, productIds: [product_id] });
    expect(res.status).toBe(201);
    const order = await client.orders.get((res.body as { purchaseId: string }).purchaseId);
    expect(order.currency).toBe('USD');
    expect(order.seller_fee_breakdown.find((f) => f.fee_type === 'SHIPPING_FEE')).toEqual({
      fee_type: 'SHIPPING_FEE',
      amount: small.cost.amount,
      currency: 'USD',
    });
  });

  it('insights.shop and insights.product by SKU / product ID / slug', async () => {
    const p = await shop.client.products.create(listing());
    const s = await shop.client.insights.shop();
    expect(s.products?.on_sale_count).toBeGreaterThan(0);
    for (const insight of [
      await shop.client.insights.productBySku(p.sku!),
      await shop.client.insights.productByProductId(p.product_id),
      await shop.client.insights.productBySlug(p.slug),
      await shop.client.insights.product({ sku: p.sku! }),
    ]) {
      expect(insight.likes_count).toEqual(expect.any(Number));
    }
  });

  it('pricing.inspiration predicts a price range', async () => {
    const res = await shop.client.pricing.inspiration(PRICING_REQUEST);
    expect(Number(res.price_prediction.lower_bound)).toBeLessThanOrEqual(
      Number(res.price_prediction.upper_bound),
    );
    expect(Array.isArray(res.similar_sold_items)).toBe(true);
  });

  it('pricing.inspiration: unsupported_country follows the seller’s country, not the request’s', async () => {
    const request = PRICING_REQUEST;
    const fr = createSeller(shop.sim.world, { username: 'client-test-shop-fr', countryCode: 'FR' });
    const frClient = shop.clientWith({
      apiKey: createApiKey(shop.sim.world, 'partner-client-test', fr.id).key,
    });
    const err = await frClient.pricing.inspiration(request).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).not.toBeInstanceOf(LocalValidationError); // the service decides, not the client
    expect(err).toMatchObject({ status: 422, code: 'unsupported_country' });
    expect((err as ValidationError).message).toContain(PRICING_COUNTRIES.join(', '));
    // The GB seller is served whatever country the request names.
    const gb = await shop.client.pricing.inspiration({ ...request, country: 'FR' });
    expect(gb.price_prediction.balanced).toEqual(expect.any(String));
  });
});

describe('webhooks configuration, status and request()', () => {
  it('webhooks.create / list / delete', async () => {
    const sub = await shop.client.webhooks.create({
      url: 'https://hooks.example.com/selling',
      event_types: ['v1:order.new'],
    });
    expect(sub).toMatchObject({ url: 'https://hooks.example.com/selling', event_types: ['v1:order.new'] });
    expect((await shop.client.webhooks.list()).map((w) => w.id)).toContain(sub.id);
    await shop.client.webhooks.delete(sub.id);
    await shop.client.webhooks.delete(sub.id); // idempotent: a repeat succeeds too
    expect((await shop.client.webhooks.list()).map((w) => w.id)).not.toContain(sub.id);
  });

  it('status() and the escape hatch keep auth, typed errors and schemas', async () => {
    expect(await shop.client.status()).toEqual({ status: 'OK' });
    const details = await shop.client.request<{ id: number }>({ method: 'GET', path: '/api/v1/shop/' });
    expect(details.id).toBe(shop.sellerId);
    const page = await shop.client.request<{ data: unknown[] }>({
      method: 'GET',
      path: '/api/v1/orders/?limit=1',
    });
    expect(page.data.length).toBeLessThanOrEqual(1);
    await expect(shop.client.request({ method: 'GET', path: '/api/v1/nowhere/' })).rejects.toMatchObject({
      status: 404,
    });
    const last = shop.events.filter((e) => e.type === 'request').at(-1)!;
    expect(last).toMatchObject({ operationId: 'request.get', path: '/api/v1/nowhere/' });
  });
});
