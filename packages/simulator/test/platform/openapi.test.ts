// The generated OpenAPI document, served where the public service serves its own: no credential, not
// metered, exactly the text the api-client generates (and checks in as packages/api-client/openapi.yaml).
import { OPENAPI_DOCUMENT_PATH, openApiYaml } from '@selling-kit/api-client/openapi';
import { startTestShop, type TestShop } from '../helpers.ts';

let shop: TestShop;
beforeAll(async () => {
  shop = await startTestShop({ config: { rateLimits: { general: { limit: 1, windowMs: 60_000 } } } });
});
afterAll(() => shop.sim.close());

describe(`GET ${OPENAPI_DOCUMENT_PATH}`, () => {
  it('answers the generated YAML without a credential', async () => {
    const res = await fetch(`${shop.sim.url}${OPENAPI_DOCUMENT_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await res.text()).toBe(openApiYaml());
  });

  it('is not metered: a one-request-per-minute shop can read it again and again', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${shop.sim.url}${OPENAPI_DOCUMENT_PATH}`, {
        headers: { authorization: `Bearer ${shop.apiKey}` },
      });
      expect(res.status).toBe(200);
    }
    // …while the same key is metered on the API itself (the limit is really in force).
    const statuses = [];
    for (let i = 0; i < 2; i++) statuses.push((await shop.call('GET', '/api/v1/shop/')).status);
    expect(statuses).toEqual([200, 429]);
  });
});
