// The contract check itself: it must fail on what breaks the document, or it proves nothing.
import { ContractChecker, type Exchange } from '../scripts/contract-check.ts';

const checker = new ContractChecker();
const exchange = (over: Partial<Exchange>): Exchange => ({
  operationId: 'shop.get',
  method: 'GET',
  path: '/api/v1/shop/',
  query: {},
  fromClient: true,
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify({ id: 1, username: 'shop', country_code: 'GB' }),
  ...over,
});
const kinds = (x: Exchange) => checker.check(x).map((v) => v.kind);

describe('the contract checker', () => {
  it('passes a conforming answer and an error envelope', () => {
    expect(kinds(exchange({}))).toEqual([]);
    const envelope = JSON.stringify({ id: 'e1', errors: [{ code: 'unauthorized', message: 'no key' }] });
    expect(kinds(exchange({ status: 401, body: envelope }))).toEqual([]);
  });

  it('catches a body missing a required field, a body where none is declared, an undeclared status', () => {
    expect(kinds(exchange({ body: JSON.stringify({ id: 1 }) }))).toEqual(['response body']);
    expect(kinds(exchange({ status: 401, body: JSON.stringify({ message: 'x' }) }))).toEqual([
      'response body',
    ]);
    expect(
      kinds(exchange({ operationId: 'products.deleteBySku', method: 'DELETE', body: '{"ok":true}' })),
    ).toEqual(['body where none is declared']);
    expect(kinds(exchange({ status: 302 }))).toEqual(['undeclared status']);
    expect(kinds(exchange({ status: 429, body: '{"message":"slow down"}' }))).toEqual(['response body']);
  });

  it("checks the client's requests that the service accepted", () => {
    const bad = {
      operationId: 'products.list',
      path: '/api/v1/products/',
      query: { limit: '500', colour: 'red' },
      body: JSON.stringify({ meta: { cursor: null, has_more: false }, data: [] }),
    };
    expect(kinds(exchange(bad)).sort()).toEqual(['query parameter', 'undeclared query parameter']);
    expect(kinds(exchange({ ...bad, fromClient: false }))).toEqual([]);
    const envelope = JSON.stringify({ id: 'e1', errors: [{ code: 'bad-request', message: 'limit' }] });
    expect(kinds(exchange({ ...bad, status: 400, body: envelope }))).toEqual([]);
    const fault = JSON.stringify({ id: 'e2', errors: [{ code: 'unexpected_response', message: '' }] });
    expect(kinds(exchange({ ...bad, status: 502, body: fault }))).toEqual([]);
  });
});
