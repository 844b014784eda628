// The error hierarchy: every documented code maps to its class, unknown codes fall back to the status
// class, the error id is always kept, and nothing secret is serialised.
import * as errors from '../src/core/errors.ts';
import { ERROR_CODES, errorFromResponse, scopesInMessage } from '../src/core/index.ts';

const env = (code: string, message = `about ${code}`) => ({ id: `id-${code}`, errors: [{ code, message }] });

describe('errorFromResponse', () => {
  it.each([
    [401, 'unauthorized', errors.UnauthorizedError],
    [401, 'partner_access_denied', errors.PartnerAccessDeniedError],
    [403, 'insufficient_scope', errors.InsufficientScopeError],
    [404, 'product_not_found', errors.ProductNotFoundError],
    [404, 'purchase_id_not_found', errors.PurchaseNotFoundError],
    [404, 'parcel_id_not_found', errors.ParcelNotFoundError],
    [404, 'address_not_found', errors.NotFoundError],
    [404, 'price_prediction_not_available', errors.NotFoundError],
    [409, 'product_has_active_offers', errors.ConflictError],
    [422, 'product_not_on_sale', errors.ValidationError],
    [422, 'product_has_been_banned', errors.ValidationError],
    [422, 'too_many_pictures', errors.ValidationError],
    [422, 'ingest_picture_error', errors.ValidationError],
    [422, 'invalid_description', errors.ValidationError],
    [422, 'invalid_brand', errors.ValidationError],
    [422, 'invalid_size', errors.ValidationError],
    [422, 'invalid_department', errors.ValidationError],
    [422, 'manual_shipping_not_allowed', errors.ValidationError],
    [422, 'seller_onboarding_incomplete', errors.ValidationError],
    [422, 'unsupported_country', errors.ValidationError],
    [422, 'validation', errors.ValidationError],
    [422, 'validation-error', errors.ValidationError],
    [400, 'bad-request', errors.BadRequestError],
    [400, 'generic_error', errors.BadRequestError],
    [414, 'generic_error', errors.BadRequestError],
    [500, 'generic_error', errors.ServerError],
    [500, 'depop_json_deserialization', errors.ServerError],
    [500, 'missing_address_configuration', errors.ServerError],
    [500, 'missing_partner_configuration', errors.ServerError],
    [502, 'unexpected_response', errors.ServerError],
    [504, 'generic_error', errors.ServerError],
  ])('%i %s → %p', (status, code, cls) => {
    const err = errorFromResponse(status, env(code), { operationId: 'x.y' });
    expect(err).toBeInstanceOf(cls);
    expect(err).toBeInstanceOf(errors.SellingApiError);
    expect(err).toMatchObject({
      status,
      code,
      errorId: `id-${code}`,
      message: `about ${code}`,
      operationId: 'x.y',
    });
    expect(err.retryable).toBe(status >= 500);
  });

  it('covers every code of the catalogue', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      const err = errorFromResponse(status, env(code));
      expect(err.code).toBe(code);
      expect(err.errorId).toBe(`id-${code}`);
    }
  });

  it.each([
    [400, errors.BadRequestError],
    [401, errors.UnauthorizedError],
    [403, errors.InsufficientScopeError],
    [404, errors.NotFoundError],
    [409, errors.ConflictError],
    [422, errors.ValidationError],
    [429, errors.RateLimitedError],
    [500, errors.ServerError],
    [503, errors.ServerError],
  ])('an unknown code falls back to the status class (%i)', (status, cls) => {
    const err = errorFromResponse(status, env('brand_new_code_2027'));
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe('brand_new_code_2027');
    expect(err.errorId).toBe('id-brand_new_code_2027');
  });

  it('reads a non-JSON answer by status', () => {
    const err = errorFromResponse(502, '<html>Bad gateway</html>');
    expect(err).toBeInstanceOf(errors.ServerError);
    expect(err.code).toBe('http_502');
    expect(err.errorId).toBeUndefined();
  });

  it('parses the gateway 429 body', () => {
    const err = errorFromResponse(429, {
      id: 'rl-1',
      message: 'Rate limit exceeded',
      code: 'too_many_requests',
      group: 'create_update',
      retry_after_ms: 850,
    });
    expect(err).toBeInstanceOf(errors.RateLimitedError);
    expect(err).toMatchObject({
      retryAfterMs: 850,
      group: 'create_update',
      errorId: 'rl-1',
      retryable: true,
    });
  });

  it('classifies by status first: a 5xx stays a retryable ServerError whatever its code; only 429 is a rate limit', () => {
    const server = errorFromResponse(500, env('product_not_found', 'upstream confused'));
    expect(server).toBeInstanceOf(errors.ServerError);
    expect(server).toMatchObject({ code: 'product_not_found', retryable: true });
    const notLimited = errorFromResponse(400, { code: 'too_many_requests', message: 'odd' });
    expect(notLimited).not.toBeInstanceOf(errors.RateLimitedError);
    expect(notLimited).toBeInstanceOf(errors.BadRequestError);
  });

  it('names the missing scopes', () => {
    const err = errorFromResponse(
      403,
      env('insufficient_scope', 'missing required scope(s): offers_write, shop_read; re-authorise'),
    ) as errors.InsufficientScopeError;
    expect(err.scopes).toEqual(['offers_write', 'shop_read']);
    expect(scopesInMessage('requires one of the scopes: products_read, offers_read')).toEqual([
      'products_read',
      'offers_read',
    ]);
  });

  it('reads the token endpoint’s own format', () => {
    const body = {
      code: 400,
      error: 'invalid_grant',
      message: 'OAuth2 error',
      detail: 'refresh token has already been used',
      id: 'oa-1',
    };
    const err = errorFromResponse(400, body, { oauth: true });
    expect(err).toBeInstanceOf(errors.ReauthorizationRequiredError);
    expect(err).toBeInstanceOf(errors.OAuthError);
    expect(err).toMatchObject({
      code: 'invalid_grant',
      error: 'invalid_grant',
      errorId: 'oa-1',
      message: 'refresh token has already been used',
    });
    const other = errorFromResponse(
      401,
      { ...body, code: 401, error: 'client secret does not match' },
      { oauth: true },
    );
    expect(other).toBeInstanceOf(errors.OAuthError);
    expect(other).not.toBeInstanceOf(errors.ReauthorizationRequiredError);
  });

  it('scrubs secrets out of server text and serialises only identifiers', () => {
    const secret = 'pak_supersecret_123456';
    const err = errorFromResponse(401, env('unauthorized', `bad key ${secret}`), {
      scrub: (t) => t.split(secret).join('[redacted]'),
    });
    expect(err.message).toBe('bad key [redacted]');
    const json = JSON.stringify(err);
    expect(json).not.toContain(secret);
    expect(JSON.parse(json)).toMatchObject({
      name: 'UnauthorizedError',
      status: 401,
      code: 'unauthorized',
      errorId: 'id-unauthorized',
    });
  });
});
