// Every error class of the hierarchy, produced by the simulator over real HTTP.
import * as errors from '../../src/core/errors.ts';
import { createClient } from '../../src/index.ts';
import { createOAuthClient, listing, shopPerFile } from '../helpers/sim.ts';

const shop = shopPerFile();

async function caught(p: Promise<unknown>): Promise<errors.SellingApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(errors.SellingApiError);
  return e as errors.SellingApiError;
}

describe('error classes over HTTP', () => {
  it('UnauthorizedError for an unknown key (error id kept)', async () => {
    const client = shop.clientWith({ apiKey: 'pak_not_a_real_key_000000' });
    const err = await caught(client.shop.get());
    expect(err).toBeInstanceOf(errors.UnauthorizedError);
    expect(err).toMatchObject({
      status: 401,
      code: 'unauthorized',
      retryable: false,
      operationId: 'shop.get',
      attempts: 1,
    });
    expect(err.errorId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('PartnerAccessDeniedError when the partner’s access is disabled', async () => {
    await shop.admin('PATCH', '/admin/partners/partner-client-test', { accessDenied: true });
    try {
      const err = await caught(shop.client.shop.get());
      expect(err).toBeInstanceOf(errors.PartnerAccessDeniedError);
      expect(err).toMatchObject({ status: 401, code: 'partner_access_denied' });
    } finally {
      await shop.admin('PATCH', '/admin/partners/partner-client-test', { accessDenied: false });
    }
  });

  it('InsufficientScopeError names the missing scope', async () => {
    const app = createOAuthClient(shop.sim.world, 'partner-scopes', ['https://app.test/cb']);
    const issued = await shop.admin('POST', '/admin/oauth/tokens', {
      clientId: app.clientId,
      sellerId: shop.sellerId,
      scopes: ['shop_read'],
    });
    const body = issued.body as { access_token: string; refresh_token: string };
    const client = shop.clientWith({
      apiKey: undefined,
      oauth: {
        clientId: app.clientId,
        clientSecret: app.clientSecret,
        tokens: { accessToken: body.access_token, refreshToken: body.refresh_token },
      },
    });
    await expect(client.shop.get()).resolves.toMatchObject({ id: shop.sellerId });
    const err = await caught(client.orders.list().firstPage());
    expect(err).toBeInstanceOf(errors.InsufficientScopeError);
    expect((err as errors.InsufficientScopeError).scopes).toEqual(['orders_read']);
  });

  it('ProductNotFoundError, PurchaseNotFoundError, ParcelNotFoundError, NotFoundError', async () => {
    expect(await caught(shop.client.products.getBySku('NO-SUCH-SKU'))).toBeInstanceOf(
      errors.ProductNotFoundError,
    );
    expect(await caught(shop.client.orders.get('999999999'))).toBeInstanceOf(errors.PurchaseNotFoundError);
    const { product_id } = await shop.client.products.create(listing());
    await shop.admin('POST', '/admin/orders', { sellerId: shop.sellerId, productIds: [product_id] });
    const [order] = await shop.client.orders.list({ limit: 1 }).toArray();
    const parcel = await caught(
      shop.client.orders.markParcelShipped(order!.purchase_id, '00000000-0000-0000-0000-000000000000', {
        tracking_number: 'X1',
        carrier: 'DHL',
      }),
    );
    expect(parcel).toBeInstanceOf(errors.ParcelNotFoundError);
    const address = await caught(shop.client.shipping.listProviders(987654));
    expect(address).toBeInstanceOf(errors.NotFoundError);
    expect(address.code).toBe('address_not_found');
  });

  it('ValidationError (422) from the service when local validation is off', async () => {
    const err = await caught(
      shop.client.products.create(listing({ department: 'pets' }), { validate: false }),
    );
    expect(err).toBeInstanceOf(errors.ValidationError);
    expect(err).toMatchObject({ status: 422, code: 'invalid_department' });
  });

  it.each(['validation-error', 'offer_recipient_blocked'])(
    'ValidationError by status for a 422 %s passed through from the offers system',
    async (code) => {
      // Spec: offers may fail "with 422 and further codes passed through from the offers system";
      // "unknown codes must be handled by falling back to the HTTP status".
      const p = await shop.client.products.create(listing({ price_amount: '50.00' }));
      await shop.admin('POST', `/admin/products/${p.product_id}/likes`, { likerId: 6161 });
      shop.fault({ type: 'error_422', operationId: 'offers.submit*', code, count: 1 });
      const offer = { offer_recipient_id: 6161, offer_value: 40, offer_currency: 'GBP' };
      const err = await caught(shop.client.offers.submitBySku(p.sku!, offer));
      expect(err).toBeInstanceOf(errors.ValidationError);
      expect(err).not.toBeInstanceOf(errors.LocalValidationError);
      expect(err).toMatchObject({
        status: 422,
        code,
        retryable: false,
        operationId: 'offers.submitBySku',
        attempts: 1,
      });
      expect(err.errorId).toEqual(expect.any(String));
      await expect(shop.client.offers.submitBySku(p.sku!, offer)).resolves.toBeUndefined();
    },
  );

  it('LocalValidationError before anything is sent', async () => {
    const before = shop.events.length;
    const err = await caught(shop.client.products.create(listing({ sku: 'S'.repeat(51) })));
    expect(err).toBeInstanceOf(errors.LocalValidationError);
    expect(err).toMatchObject({ field: 'sku', status: undefined });
    expect(shop.events.slice(before).filter((e) => e.type === 'request')).toHaveLength(0);
  });

  it('BadRequestError (400) for a malformed parameter', async () => {
    const err = await caught(
      shop.client.request({ method: 'GET', path: '/api/v1/orders/', query: { cursor: '!!!' } }),
    );
    expect(err).toBeInstanceOf(errors.BadRequestError);
    expect(err.status).toBe(400);
  });

  it('ConflictError (409) for a duplicate webhook URL', async () => {
    await shop.client.webhooks.create({ url: 'https://hooks.example.com/dup' });
    const err = await caught(shop.client.webhooks.create({ url: 'https://hooks.example.com/dup' }));
    expect(err).toBeInstanceOf(errors.ConflictError);
    expect(err.status).toBe(409);
  });

  it('RateLimitedError with retryAfterMs parsed from the gateway', async () => {
    shop.fault({ type: 'rate_limit_storm', operationId: 'shop.get', count: 5, retryAfterMs: 1500 });
    const client = shop.clientWith({ retry: { maxRateLimitRetries: 0 } });
    const err = await caught(client.shop.get());
    expect(err).toBeInstanceOf(errors.RateLimitedError);
    expect(err).toMatchObject({
      status: 429,
      code: 'too_many_requests',
      retryAfterMs: 1500,
      group: 'general',
    });
    expect(err.errorId).toEqual(expect.any(String));
  });

  it('ServerError (500) after the bounded retries', async () => {
    shop.fault({ type: 'error_500', operationId: 'shop.get', count: 3 });
    const client = shop.clientWith({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 } });
    const err = await caught(client.shop.get());
    expect(err).toBeInstanceOf(errors.ServerError);
    expect(err).toMatchObject({ status: 500, retryable: true, attempts: 3 });
  });

  it('OutcomeUnknownError for a 504 on a refund', async () => {
    const { product_id } = await shop.client.products.create(listing());
    await shop.admin('POST', '/admin/orders', { sellerId: shop.sellerId, productIds: [product_id] });
    const [order] = await shop.client.orders.list({ limit: 1 }).toArray();
    shop.fault({ type: 'timeout_after_commit', operationId: 'refunds.create', count: 1 });
    const err = await caught(shop.client.refunds.create(order!.purchase_id, { items_refund_amount: '5.00' }));
    expect(err).toBeInstanceOf(errors.OutcomeUnknownError);
    expect(err).toMatchObject({ status: 504, operationId: 'refunds.create', retryable: false });
    expect(err.errorId).toEqual(expect.any(String));
  });

  it('OAuthError and ReauthorizationRequiredError from the token endpoint', async () => {
    const app = createOAuthClient(shop.sim.world, 'partner-oauth-errors', ['https://app.test/cb']);
    const client = shop.clientWith({
      apiKey: undefined,
      oauth: { clientId: app.clientId, clientSecret: app.clientSecret },
    });
    const reauth = await caught(client.auth.refresh({ refreshToken: 'prt_unknown_token_0000' }));
    expect(reauth).toBeInstanceOf(errors.ReauthorizationRequiredError);
    expect(reauth).toMatchObject({ status: 400, code: 'invalid_grant', errorId: expect.any(String) });
    const wrongSecret = await caught(
      client.auth.refresh({ refreshToken: 'prt_x_00000000', clientSecret: 'secret_wrong_0000' }),
    );
    expect(wrongSecret).toBeInstanceOf(errors.OAuthError);
    expect(wrongSecret).not.toBeInstanceOf(errors.ReauthorizationRequiredError);
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.message).not.toContain('secret_wrong_0000');
  });

  it('TransportError when nothing answers', async () => {
    const client = createClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'pak_x_000000',
      retry: { maxRetries: 1, baseDelayMs: 1 },
    });
    const err = await caught(client.shop.get());
    expect(err).toBeInstanceOf(errors.TransportError);
    expect(err).toMatchObject({ kind: 'network', requestSent: false, status: undefined, attempts: 2 });
  });
});
