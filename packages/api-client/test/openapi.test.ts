// The generated OpenAPI document: current on disk, valid for two maintained validators, complete against
// the operation table, and describing what the simulator really answers.
import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { stringify } from 'yaml';
import { OPERATIONS } from '../src/core/operations.ts';
import { GRANT_ENDPOINT_PATH, SCOPES } from '../src/core/schemas/index.ts';
import {
  API_KEY_SCHEME,
  OAUTH_SCHEME,
  OPENAPI_DOCUMENT_PATH,
  openApiDocument,
  openApiYaml,
} from '../src/openapi/index.ts';
import { listing, startShop, type SimShop } from './helpers/sim.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a parsed JSON document
type Json = Record<string, any>;
const doc = openApiDocument() as Json;
const declared = (path: string, method: string): Json => doc.paths[path]?.[method.toLowerCase()];

/** Redocly's `recommended` rules, less one: the service's paths end with `/` (public reference). */
async function redoclyErrors(document: Json): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'], rules: { 'no-path-trailing-slash': 'off' } });
  const problems = await lintFromString({
    source: stringify(document),
    absoluteRef: '/openapi.yaml',
    config,
  });
  return problems
    .filter((p) => p.severity === 'error')
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
}

describe('the OpenAPI document', () => {
  it('is current: packages/api-client/openapi.yaml is what the generator writes', () => {
    const onDisk = readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8');
    if (onDisk !== openApiYaml())
      throw new Error('packages/api-client/openapi.yaml is stale: run pnpm build');
  });

  it('is deterministic', () => {
    expect(openApiYaml()).toBe(openApiYaml());
  });

  it('passes swagger-parser validation (OpenAPI 3.1 schema, every $ref resolves)', async () => {
    const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as Json;
    expect(api.openapi).toBe('3.1.0');
  });

  it("passes Redocly's recommended lint with no error, and the lint catches a broken document", async () => {
    expect(await redoclyErrors(doc)).toEqual([]);
    const broken = structuredClone(doc);
    delete broken.paths['/api/v1/orders/{purchase_id}/'].get.parameters;
    broken.paths['/api/v1/shop/'].get.security = [{ nope: [] }];
    const errors = (await redoclyErrors(broken)).join('\n');
    expect(errors).toMatch(/path-parameters-defined/);
    expect(errors).toMatch(/security-defined/);
  });

  it('declares every operation of the table with its method, path, operationId and tag', () => {
    for (const op of OPERATIONS) {
      const o = declared(op.path, op.method);
      expect(o?.operationId).toBe(op.id);
      expect(o.tags).toEqual([op.id.split('.')[0]]);
      expect(o.summary).toBe(op.summary);
    }
    const count = Object.values(doc.paths as Json).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(OPERATIONS.length + 1); // + the document itself
    expect(declared(OPENAPI_DOCUMENT_PATH, 'GET').operationId).toBe('docs.openapi');
    expect(declared(OPENAPI_DOCUMENT_PATH, 'GET').security).toEqual([]);
  });

  it('declares path parameters from the placeholders and query parameters from the query schema', () => {
    for (const op of OPERATIONS) {
      const params = (declared(op.path, op.method).parameters ?? []) as Json[];
      const placeholders = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(params.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(placeholders);
      const query = params.filter((p) => p.in === 'query').map((p) => p.name);
      if (op.query) expect(query.length).toBeGreaterThan(0);
      else expect(query).toEqual([]);
    }
    const list = declared('/api/v1/products/', 'GET').parameters as Json[];
    expect(list.find((p) => p.name === 'limit')).toMatchObject({ in: 'query', required: false });
    const byId = declared('/api/v1/products/by-product-id/{productId}/', 'GET').parameters as Json[];
    expect(byId[0]!.schema.type).toBe('integer');
  });

  it('asks for no credential where auth is none, and for a key or the scopes elsewhere', () => {
    const scheme = doc.components.securitySchemes;
    expect(Object.keys(scheme[OAUTH_SCHEME].flows.authorizationCode.scopes)).toEqual([...SCOPES]);
    expect(scheme[API_KEY_SCHEME]).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toBeUndefined(); // no global requirement: each operation states its own
    for (const op of OPERATIONS) {
      const security = declared(op.path, op.method).security as Json[];
      if (op.auth === 'none') {
        expect(security).toEqual([]);
        continue;
      }
      const wanted = op.scopesAnyOf?.length ? op.scopesAnyOf.map((s) => [s]) : [op.scopes];
      expect(security).toEqual([
        ...wanted.map((scopes) => ({ [OAUTH_SCHEME]: scopes })),
        { [API_KEY_SCHEME]: [] },
      ]);
    }
    expect(declared('/status', 'GET').security).toEqual([]);
    expect(declared(GRANT_ENDPOINT_PATH, 'POST').security).toEqual([]);
  });

  it('gives every operation its success, error envelope and (when metered) 429 with Retry-After', () => {
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    for (const op of OPERATIONS) {
      const { responses } = declared(op.path, op.method);
      expect(Boolean(responses['200'].content)).toBe(op.response !== undefined);
      const error = op.path === GRANT_ENDPOINT_PATH ? 'OAuthErrorResponse' : 'ErrorEnvelope';
      for (const range of ['4XX', '5XX'])
        expect(responses[range].content['application/json'].schema).toEqual(ref(error));
      if (op.group) {
        expect(responses['429'].headers['Retry-After']).toBeDefined();
        expect(responses['429'].content['application/json'].schema).toEqual(ref('RateLimitBody'));
      } else expect(responses['429']).toBeUndefined();
    }
    const token = declared(GRANT_ENDPOINT_PATH, 'POST');
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
  });

  it('marks staging-only operations', () => {
    for (const op of OPERATIONS) {
      const o = declared(op.path, op.method);
      expect(o['x-staging-only'] === true).toBe(op.stagingOnly === true);
      if (op.stagingOnly) {
        expect(o.description).toMatch(/^Staging only/);
        expect(o.servers).toEqual([expect.objectContaining({ url: expect.stringContaining('staging') })]);
      }
    }
  });

  it('names reused wire objects once, as components', () => {
    const { schemas } = doc.components;
    expect(schemas.ErrorEnvelope.properties.errors.items).toEqual({ $ref: '#/components/schemas/ErrorItem' });
    expect(schemas.Product.properties.address).toEqual({ $ref: '#/components/schemas/Address' });
    expect(Object.keys(schemas)).toEqual(Object.keys(schemas).sort());
    expect(JSON.stringify(doc)).not.toMatch(/#\/\$defs\//);
  });
});

describe('the document against the simulator', () => {
  let shop: SimShop;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', true).addFormat('uri', true).addFormat('email', true);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const schemaAt = (op: Json, status: string) => {
    const s = op.responses[status].content['application/json'].schema;
    return ajv.compile({ $ref: `openapi${s.$ref}` });
  };
  beforeAll(async () => {
    shop = await startShop();
  });
  afterAll(() => shop.close());

  it('describes a real success body and a real error envelope', async () => {
    const shopBody = await (
      await fetch(`${shop.sim.url}/api/v1/shop/`, { headers: { authorization: `Bearer ${shop.apiKey}` } })
    ).json();
    const okValid = schemaAt(declared('/api/v1/shop/', 'GET'), '200');
    expect(okValid(shopBody) || okValid.errors).toBe(true);

    const bad = await fetch(`${shop.sim.url}/api/v1/products/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${shop.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        listing({ pictures: Array.from({ length: 9 }, (_, i) => ({ url: `https://x.test/${i}.jpg` })) }),
      ),
    });
    expect(bad.status).toBe(422);
    const errValid = schemaAt(declared('/api/v1/products/', 'POST'), '4XX');
    expect(errValid(await bad.json()) || errValid.errors).toBe(true);
    // …and would refuse a body that breaks it: the check can fail.
    expect(errValid({ errors: [] })).toBe(false);
  });
});
