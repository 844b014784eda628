// The credentials and the node's description as n8n reads them: presets resolve to the right hosts,
// the OAuth2 credential is PKCE with every scope of the core, and every operation the panel offers has
// code behind it (and nothing is offered twice or left out).
import { SCOPES } from '@selling-kit/api-client/core';
import type { INodeProperties } from 'n8n-workflow';
import { MarketplaceApi } from '../credentials/MarketplaceApi.credentials.ts';
import { MarketplaceOAuth2Api } from '../credentials/MarketplaceOAuth2Api.credentials.ts';
import { BASE_URLS } from '../credentials/environments.ts';
import { Marketplace } from '../nodes/Marketplace/Marketplace.node.ts';
import { resources } from '../nodes/Marketplace/actions/router.ts';

/**
 * Evaluates an n8n `={{ … }}` expression the way n8n would for these simple ones (plain JavaScript
 * over `$credentials` / `$self`). Test-only: the shipped code never evaluates strings.
 */
function evaluate(expression: unknown, data: Record<string, unknown>): unknown {
  const match = /^=\{\{([\s\S]*)\}\}$/.exec(String(expression));
  if (!match) return expression;
  return new Function('$credentials', '$self', `return (${match[1]});`)(data, data);
}

const ENVIRONMENTS = [
  ['production', 'https://partnerapi.depop.com'],
  ['staging', 'https://partnerapi-staging.depop.com'],
  ['simulator', 'http://127.0.0.1:4010'],
] as const;

describe('credentials', () => {
  const apiKey = new MarketplaceApi();
  const oauth = new MarketplaceOAuth2Api();

  it('presets: production, staging (public reference) and the local simulator', () => {
    expect(BASE_URLS).toEqual(Object.fromEntries(ENVIRONMENTS));
    const env = apiKey.properties.find((p) => p.name === 'environment')!;
    expect(env.options!.map((o) => (o as { value: string }).value)).toEqual([
      'production',
      'staging',
      'simulator',
      'custom',
    ]);
  });

  it('API key: a password field sent as a bearer token, tested against the seller details', () => {
    const key = apiKey.properties.find((p) => p.name === 'apiKey')!;
    expect(key.typeOptions?.password).toBe(true);
    expect(apiKey.authenticate.properties.headers).toEqual({
      Authorization: '=Bearer {{$credentials.apiKey}}',
    });
    expect(apiKey.test.request).toMatchObject({ url: '/api/v1/shop/', method: 'GET' });
    for (const [environment, url] of ENVIRONMENTS)
      expect(evaluate(apiKey.test.request.baseURL, { environment, baseUrl: '' })).toBe(url);
    expect(
      evaluate(apiKey.test.request.baseURL, { environment: 'custom', baseUrl: 'http://127.0.0.1:9999//' }),
    ).toBe('http://127.0.0.1:9999');
  });

  it('OAuth2: extends oAuth2Api, PKCE, every scope of the core, client id in the body', () => {
    expect(oauth.name).toMatch(/OAuth2/);
    expect(oauth.extends).toEqual(['oAuth2Api']);
    const field = (name: string) => oauth.properties.find((p) => p.name === name)!;
    expect(field('grantType')).toMatchObject({ type: 'hidden', default: 'pkce' });
    expect(SCOPES).toHaveLength(7);
    expect(field('scope')).toMatchObject({ type: 'hidden', default: SCOPES.join(' ') });
    expect(String(field('scope').default).split(' ').sort()).toEqual(
      [
        'offers_read',
        'offers_write',
        'orders_read',
        'orders_write',
        'products_read',
        'products_write',
        'shop_read',
      ].sort(),
    );
    expect(field('authentication').default).toBe('body');
  });

  it('OAuth2: consent and token URLs follow the environment', () => {
    const authUrl = oauth.properties.find((p) => p.name === 'authUrl')!.default;
    const tokenUrl = oauth.properties.find((p) => p.name === 'accessTokenUrl')!.default;
    for (const [environment, url] of ENVIRONMENTS)
      expect(evaluate(tokenUrl, { environment, baseUrl: '' })).toBe(`${url}/api/v1/oauth2/access-token/`);
    expect(evaluate(authUrl, { environment: 'production', baseUrl: '' })).toBe(
      'https://www.depop.com/settings/oauth/apps/',
    );
    expect(evaluate(authUrl, { environment: 'simulator', baseUrl: '' })).toBe(
      'http://127.0.0.1:4010/oauth/authorize',
    );
    expect(evaluate(tokenUrl, { environment: 'custom', baseUrl: 'http://127.0.0.1:5555/' })).toBe(
      'http://127.0.0.1:5555/api/v1/oauth2/access-token/',
    );
    expect(evaluate(authUrl, { environment: 'custom', baseUrl: 'http://127.0.0.1:5555' })).toBe(
      'http://127.0.0.1:5555/oauth/authorize',
    );
  });
});

describe('the Marketplace node description', () => {
  const { description } = new Marketplace();
  const prop = (name: string, resource?: string): INodeProperties[] =>
    description.properties.filter(
      (p) => p.name === name && (!resource || p.displayOptions?.show?.resource?.includes(resource)),
    );

  it('is a programmatic, tool-usable node with both credentials', () => {
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials!.map((c) => c.name)).toEqual(['marketplaceApi', 'marketplaceOAuth2Api']);
    expect(prop('authentication')[0]!.options!.map((o) => (o as { value: string }).value)).toEqual([
      'apiKey',
      'oAuth2',
    ]);
  });

  it("names its resources with the client's nouns and routes every offered operation", () => {
    const offered = prop('resource')[0]!.options!.map((o) => (o as { value: string }).value);
    expect(offered.sort()).toEqual(
      ['insights', 'offers', 'orders', 'pricing', 'products', 'refunds', 'shipping', 'shop'].sort(),
    );
    expect(Object.keys(resources).sort()).toEqual(offered);
    for (const resource of offered) {
      // Products has one Operation choice for versions 1–2 and one from version 3 (Update / Replace).
      const operations = prop('operation', resource);
      expect(operations).toHaveLength(resource === 'products' ? 2 : 1);
      const values = [
        ...new Set(operations.flatMap((op) => op.options!.map((o) => (o as { value: string }).value))),
      ];
      expect(values.sort()).toEqual(Object.keys(resources[resource]!.operations).sort());
      for (const value of values)
        expect(typeof resources[resource]!.operations[value]!.execute).toBe('function');
    }
    expect(Object.keys(resources.products!.operations).sort()).toEqual(
      [
        'boost',
        'create',
        'delete',
        'get',
        'getAll',
        'markSold',
        'patch',
        'replace',
        'restock',
        'unboost',
        'update',
      ].sort(),
    );
    const [before, v3] = prop('operation', 'products');
    const valuesOf = (p: INodeProperties) => p.options!.map((o) => (o as { value: string }).value);
    expect(before!.displayOptions!.show!['@version']).toEqual([1, 2]);
    expect(valuesOf(before!)).toContain('patch');
    expect(valuesOf(before!)).not.toContain('replace');
    expect(v3!.displayOptions!.show!['@version']).toEqual([{ _cnd: { gte: 3 } }]);
    expect(valuesOf(v3!)).toEqual(expect.arrayContaining(['update', 'replace']));
    expect(valuesOf(v3!)).not.toContain('patch');
  });

  it('every field of an operation is shown only for its resource and operation', () => {
    for (const p of description.properties) {
      if (['authentication', 'resource', 'operation'].includes(p.name)) continue;
      expect(p.displayOptions?.show?.resource).toHaveLength(1);
      expect(p.displayOptions?.show?.operation).toHaveLength(1);
    }
  });
});
