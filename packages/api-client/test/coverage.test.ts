// Every operation of the table is reachable through a resource method (with its SKU / product ID /
// slug variants), sending the table's method and path.
import { OPERATIONS, matchOperation, type HttpMethod } from '../src/client/index.ts';
import { CREATE_BODY, PRICING_REQUEST, PRODUCT, json, scriptedClient } from './helpers/scripted.ts';

describe('operation coverage', () => {
  it('reaches every operation of the table', async () => {
    const t = scriptedClient([], {
      oauth: { clientId: 'c', clientSecret: 'secret_123456', redirectUri: 'https://a/cb' },
    });
    t.transport.fallback = (req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith('/access-token/'))
        return json(200, { access_token: 'pat_1234567', refresh_token: 'prt_1234567', expires_in: 60 });
      if (req.method === 'GET' && /\/(products|orders)\/$|seller-addresses\/$/.test(path))
        return json(200, { meta: { cursor: null, has_more: false }, data: [] });
      if (path === '/api/v1/webhooks/' && req.method === 'GET') return json(200, { data: [] });
      if (path.includes('/by-')) return json(200, PRODUCT);
      return json(200, undefined);
    };
    const { sku: _s, ...put } = CREATE_BODY;
    const putBody = { ...put, attributes: {} };
    const offer = { offer_recipient_id: 1, offer_value: 5, offer_currency: 'GBP' };
    const c = t.client;
    const refs = [{ sku: 'SKU-1' }, { productId: 7 }, { slug: 'tee-7' }];
    await c.products.create(CREATE_BODY);
    await c.products.list().toArray();
    for (const ref of refs) {
      await c.products.get(ref);
      await c.products.update(ref, putBody);
      await c.products.patch(ref, { price_amount: '10.00' });
      await c.products.delete(ref);
      await c.products.markAsSold(ref);
      await c.offers.submit(ref, offer);
      await c.insights.product(ref);
    }
    await c.products.simulatePurchase({ sku: 'SKU-1' });
    await c.products.simulatePurchase({ productId: 7 });
    await c.products.simulateLike({ sku: 'SKU-1' });
    await c.products.simulateLike({ productId: 7 });
    await c.orders.list().toArray();
    await c.orders.get('P1');
    await c.orders.markParcelShipped('P1', 'parcel-1', { tracking_number: 'T1', carrier: 'DHL' });
    await c.refunds.create('P1', { items_refund_amount: '1.00' });
    await c.shop.get();
    await c.shop.listAddresses().toArray();
    await c.shipping.listProviders(5);
    await c.insights.shop();
    await c.pricing.inspiration(PRICING_REQUEST);
    await c.webhooks.list();
    await c.webhooks.create({ url: 'https://hooks.example.com/x' });
    await c.webhooks.delete('wh_1');
    await c.auth.exchangeCode({ code: 'code', codeVerifier: 'v'.repeat(43) });
    await c.auth.refresh({ refreshToken: 'prt_1234567' });
    await c.status();

    const reached = new Set(
      t.transport.requests.map((r) => matchOperation(r.method as HttpMethod, new URL(r.url).pathname)?.id),
    );
    const missing = OPERATIONS.map((op) => op.id).filter((id) => !reached.has(id));
    expect(missing).toEqual([]);
  });
});
