// Redaction: secret-named fields by suffix, and credential-shaped words in free text.
import { REDACTED, SecretScrubber, redactForm, redactValue } from '../src/core/redact.ts';

describe('redaction', () => {
  it('replaces fields whose names end in _token, _secret, _key or password, and keeps the rest', () => {
    const out = redactValue({
      webhook_secret: 'whsec_abcdefgh1234',
      shop_api_key: 'k-123456789',
      refresh_token: 'r',
      user_password: 'p',
      nested: [{ client_secret: 'c' }],
      code: 'abc',
      sku: 'SKU-1',
      token_type: 'Bearer',
      description: 'a tee',
    });
    expect(out).toEqual({
      webhook_secret: REDACTED,
      shop_api_key: REDACTED,
      refresh_token: REDACTED,
      user_password: REDACTED,
      nested: [{ client_secret: REDACTED }],
      code: REDACTED,
      sku: 'SKU-1',
      token_type: 'Bearer',
      description: 'a tee',
    });
    expect(redactForm('grant_type=refresh_token&refresh_token=prt_1&client_id=x')).toBe(
      `grant_type=refresh_token&refresh_token=${encodeURIComponent(REDACTED)}&client_id=x`,
    );
  });

  it('scrubs known secrets and credential-shaped words it was never told about', () => {
    const scrubber = new SecretScrubber();
    scrubber.add(() => ['my-webhook-secret-value']);
    const text =
      'key pak_live_1234567890 and token pat_abcdef0123456789 leaked with my-webhook-secret-value; pak_x stays';
    expect(scrubber.scrub(text)).toBe(
      `key ${REDACTED} and token ${REDACTED} leaked with ${REDACTED}; pak_x stays`,
    );
  });
});
