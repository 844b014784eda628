// The generated OpenAPI document: current on disk, valid for a maintained validator, complete against
// the operation table, and describing what the simulator really answers.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OPERATIONS } from '../src/core/operations.ts';
import { OPENAPI_DOCUMENT_PATH, openApiDocument, openApiYaml } from '../src/openapi/index.ts';
import { listing, startShop, type SimShop } from './helpers/sim.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a parsed JSON document
type Json = Record<string, any>;
const doc = openApiDocument() as Json;

describe('the OpenAPI document', () => {
  it('is current: packages/api-client/openapi.yaml is what the generator writes', () => {
    const onDisk = readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8');
    if (onDisk !== openApiYaml())
      throw new Error('packages/api-client/openapi.yaml is stale: run pnpm build');
  });

  it('passes a maintained OpenAPI 3.1 validator (swagger-parser)', async () => {
    const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as Json;
    expect(api.openapi).toBe('3.1.0');
  });

  it('declares every operation of the table with its method, path and operationId', () => {
    for (const op of OPERATIONS) {
      const declared = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(declared?.operationId).toBe(op.id);
    }
    const count = Object.values(doc.paths as Json).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(OPERATIONS.length + 1); // + the document itself
    expect(doc.paths[OPENAPI_DOCUMENT_PATH].get.operationId).toBe('docs.openapi');
  });

  it('asks for no credential on the token endpoint and /status, and for the scopes elsewhere', () => {
    for (const op of OPERATIONS) {
      const security = doc.paths[op.path][op.method.toLowerCase()].security as Json[];
      if (op.auth === 'none') expect(security).toEqual([]);
      else {
        expect(security).toContainEqual({ apiKey: [] });
        const wanted = op.scopesAnyOf?.length ? op.scopesAnyOf.map((s) => [s]) : [op.scopes];
        for (const scopes of wanted) expect(security).toContainEqual({ oauth2: scopes });
      }
    }
    const token = doc.paths['/api/v1/oauth2/access-token/'].post;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(token.responses.default.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/OAuthErrorResponse',
    );
  });

  it('marks staging-only operations and gives every metered operation its 429 body and Retry-After', () => {
    for (const op of OPERATIONS) {
      const declared = doc.paths[op.path][op.method.toLowerCase()];
      expect(declared['x-staging-only'] === true).toBe(op.stagingOnly === true);
      if (op.group) expect(declared.responses['429'].headers['Retry-After']).toBeDefined();
      else expect(declared.responses['429']).toBeUndefined();
    }
  });
});

describe('the document against the simulator', () => {
  let shop: SimShop;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', true).addFormat('uri', true).addFormat('email', true);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const schemaAt = (op: Json, status: string) => {
    const s = (op.responses[status] ?? op.responses.default).content['application/json'].schema;
    return ajv.compile({ $ref: `openapi${s.$ref ?? ''}`, ...(s.$ref ? {} : s) });
  };
  beforeAll(async () => {
    shop = await startShop();
  });
  afterAll(() => shop.close());

  it('is served at GET /api-docs/openapi.yaml, the same text, without a credential', async () => {
    const res = await fetch(`${shop.sim.url}${OPENAPI_DOCUMENT_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await res.text()).toBe(openApiYaml());
  });

  it('describes a real success body and a real error envelope', async () => {
    const shopBody = await (
      await fetch(`${shop.sim.url}/api/v1/shop/`, { headers: { authorization: `Bearer ${shop.apiKey}` } })
    ).json();
    const shopOp = doc.paths['/api/v1/shop/'].get;
    const okValid = schemaAt(shopOp, '200');
    expect(okValid(shopBody) || okValid.errors).toBe(true);

    const bad = await fetch(`${shop.sim.url}/api/v1/products/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        listing({ pictures: Array.from({ length: 9 }, (_, i) => ({ url: `https://x.test/${i}.jpg` })) }),
      ),
    });
    expect(bad.status).toBe(422);
    const errValid = schemaAt(doc.paths['/api/v1/products/'].post, '422');
    expect(errValid(await bad.json()) || errValid.errors).toBe(true);
    // …and would refuse a body that breaks it: the check can fail.
    expect(errValid({ errors: [] })).toBe(false);
  });
});
