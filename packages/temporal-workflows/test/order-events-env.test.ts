// The worker's order events setting (src/worker/order-events-env.ts): an http(s) URL without credentials,
// its bearer token from a file; a bad value names the variable and never echoes a secret.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { orderEventsFromEnv, OrderEventsSettingError } from '../src/worker/order-events-env.ts';

const URL_ENV = 'SELLING_KIT_ORDER_EVENTS_URL';
const TOKEN_ENV = 'SELLING_KIT_ORDER_EVENTS_TOKEN_FILE';

describe('SELLING_KIT_ORDER_EVENTS_URL', () => {
  it('unset: no endpoint (flows only log their reminders)', () => {
    expect(orderEventsFromEnv({})).toBeUndefined();
    expect(orderEventsFromEnv({ [URL_ENV]: '  ' })).toBeUndefined();
  });

  it('a URL, with the token read from its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sk-order-events-'));
    const file = join(dir, 'token');
    writeFileSync(file, 'tok_123\n');
    expect(orderEventsFromEnv({ [URL_ENV]: 'http://127.0.0.1:5678/webhook/dispatch' })).toEqual({
      url: 'http://127.0.0.1:5678/webhook/dispatch',
    });
    expect(orderEventsFromEnv({ [URL_ENV]: 'https://ops.example/orders', [TOKEN_ENV]: file })).toEqual({
      url: 'https://ops.example/orders',
      token: 'tok_123',
    });
  });

  it.each([
    ['not a url', /SELLING_KIT_ORDER_EVENTS_URL is not a URL/],
    ['ftp://ops.example/x', /must be an http\(s\) URL, not ftp:/],
    ['https://user:s3cret@ops.example/x', /must not carry credentials/],
  ])('refuses %s, naming the variable', (value, message) => {
    const error = (() => {
      try {
        orderEventsFromEnv({ [URL_ENV]: value });
      } catch (e) {
        return e as Error;
      }
      throw new Error('not refused');
    })();
    expect(error).toBeInstanceOf(OrderEventsSettingError);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('s3cret');
  });

  it('plain http only to this machine or to a host the operator lists for it (the token travels in it)', () => {
    expect(() => orderEventsFromEnv({ [URL_ENV]: 'http://n8n:5678/webhook/x' })).toThrow(/must be https/);
    expect(
      orderEventsFromEnv({
        [URL_ENV]: 'http://n8n:5678/webhook/x',
        SELLING_KIT_PLAIN_HTTP_HOSTS: 'simulator, n8n',
      }),
    ).toEqual({ url: 'http://n8n:5678/webhook/x' });
    expect(orderEventsFromEnv({ [URL_ENV]: 'http://localhost:5678/x' })).toEqual({
      url: 'http://localhost:5678/x',
    });
  });

  it('a token file that cannot be read, or is empty, is refused', () => {
    const url = { [URL_ENV]: 'https://ops.example/orders' };
    expect(() => orderEventsFromEnv({ ...url, [TOKEN_ENV]: '/no/such/file' })).toThrow(
      /SELLING_KIT_ORDER_EVENTS_TOKEN_FILE cannot be read: ENOENT/,
    );
    const empty = join(mkdtempSync(join(tmpdir(), 'sk-order-events-')), 'empty');
    writeFileSync(empty, '\n');
    expect(() => orderEventsFromEnv({ ...url, [TOKEN_ENV]: empty })).toThrow(/names an empty file/);
  });
});
