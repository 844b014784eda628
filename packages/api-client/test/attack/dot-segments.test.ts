// Attack (L2): a SKU `.` or `..` (or a percent-encoded form of one) put in a path becomes a URL
// dot-segment, and URL normalisation turns `PUT /api/v1/products/by-sku/../` into `PUT /api/v1/products/`:
// a feed row could address another resource than its listing. The client core refuses such a path
// parameter before any request, with a validation error naming the field and the rule — also with
// validation off (as the worker's clients run).
import { buildPath, LocalValidationError, operation } from '../../src/core/index.ts';
import { createClient } from '../../src/index.ts';
import type { Transport } from '../../src/core/index.ts';

const DOT_SEGMENTS = ['.', '..', '%2e', '%2E', '%2e%2E', '.%2e', '%2E.'];

const spyTransport = () => {
  const calls: string[] = [];
  const transport: Transport = {
    send: async (req) => {
      calls.push(`${req.method} ${req.url}`);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    },
  };
  return { calls, transport };
};

const RULE = 'not a dot-segment';

describe('attack: dot-segment path parameters', () => {
  it.each(DOT_SEGMENTS)('buildPath refuses the SKU %p, naming the field and the rule', (sku) => {
    let caught: unknown;
    try {
      buildPath(operation('products.updateBySku').path, { sku });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(LocalValidationError);
    expect(caught).toMatchObject({ field: 'sku', rule: RULE, code: 'validation' });
    expect((caught as Error).message).toBe(
      `sku ${JSON.stringify(sku)} would be a URL dot-segment: such a value cannot be sent in a path [sku: ${RULE}]`,
    );
  });

  it.each(DOT_SEGMENTS)(
    'the client (validation off, as the worker runs it) sends nothing for %p',
    async (sku) => {
      const { calls, transport } = spyTransport();
      const client = createClient({
        baseUrl: 'http://127.0.0.1:1',
        apiKey: 'pak_test_key_000000',
        transport,
        validate: false,
      });
      await expect(client.products.update({ sku }, { attributes: {} } as never)).rejects.toBeInstanceOf(
        LocalValidationError,
      );
      await expect(client.products.delete({ sku })).rejects.toBeInstanceOf(LocalValidationError);
      await expect(client.products.markAsSold({ sku })).rejects.toBeInstanceOf(LocalValidationError);
      await expect(client.products.getBySku(sku)).rejects.toBeInstanceOf(LocalValidationError);
      expect(calls).toEqual([]);
    },
  );

  it('dots inside a value stay allowed (`a.b`, `..x`, `...`)', () => {
    for (const sku of ['a.b', '..x', '...', 'x..'])
      expect(buildPath(operation('products.updateBySku').path, { sku })).toBe(
        `/api/v1/products/by-sku/${sku}/`,
      );
  });
});
