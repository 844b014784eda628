// The OpenAPI 3.1 document of the Selling API, generated from the operation table and the core's zod
// schemas (zod's own JSON Schema output): nothing here restates a path, a field or a scope. The simulator
// serves it at OPENAPI_DOCUMENT_PATH and `pnpm build` writes it to packages/api-client/openapi.yaml.
import type { z } from 'zod/v4';
import { OPERATIONS, type Operation } from '../core/operations.ts';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL } from '../core/request.ts';
import { RATE_LIMITS } from '../core/rate-limits.ts';
import * as schemas from '../core/schemas/index.ts';
import { Components, type Json } from './components.ts';

/** Where the public service (and the simulator) serve the document (public reference). */
export const OPENAPI_DOCUMENT_PATH = '/api-docs/openapi.yaml';
/**
 * The document's own operation. Not in the operation table: the table lists the API's JSON operations,
 * each with a client method and a simulator handler; this one answers YAML and only the simulator serves it.
 */
export const OPENAPI_DOCUMENT_OPERATION_ID = 'docs.openapi';

/** Security scheme names. */
export const OAUTH_SCHEME = 'oauth2';
export const API_KEY_SCHEME = 'apiKey';
/** The token endpoint is OAuth 2.0's: a form body, and its own error format (RFC 6749 §5.2). */
const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** Path placeholders whose values the core types (the product keys); any other is a non-empty string. */
const PATH_PARAMETER_SCHEMAS: Record<string, z.ZodType> = {
  sku: schemas.Sku,
  productId: schemas.ProductId,
  slug: schemas.Slug,
};

const isTokenEndpoint = (op: Operation) => op.path === schemas.GRANT_ENDPOINT_PATH;
const tagOf = (id: string) => id.slice(0, id.indexOf('.'));

function parameters(op: Operation, c: Components): Json[] {
  const path = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name = '']) => {
    const typed = PATH_PARAMETER_SCHEMAS[name];
    return {
      name,
      in: 'path',
      required: true,
      schema: typed ? c.inline(typed) : { type: 'string', minLength: 1 },
    };
  });
  if (!op.query) return path;
  const query = c.inline(op.query) as { properties?: Record<string, Json>; required?: string[] };
  return [
    ...path,
    ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: query.required?.includes(name) ?? false,
      schema,
    })),
  ];
}

/** Any one requirement suffices: OAuth with the operation's scopes (one entry per `scopesAnyOf` alternative) or an API key. */
function security(op: Operation): Json[] {
  if (op.auth === 'none') return [];
  const oauth = op.scopesAnyOf?.length
    ? op.scopesAnyOf.map((scope) => ({ [OAUTH_SCHEME]: [scope] }))
    : [{ [OAUTH_SCHEME]: [...op.scopes] }];
  return [...oauth, { [API_KEY_SCHEME]: [] }];
}

function responses(op: Operation, c: Components): Json {
  const json = (schema: z.ZodType) => ({ [JSON_TYPE]: { schema: c.schema(schema) } });
  const out: Json = {
    // Public reference: every documented success is a 200, many with an empty body.
    '200': op.response
      ? { description: 'Success', content: json(op.response) }
      : { description: 'Success (empty body)' },
  };
  if (op.group) {
    const { limit, windowMs } = RATE_LIMITS[op.group];
    out['429'] = {
      description:
        `Rate limit of the "${op.group}" group exceeded (${limit} requests per ${windowMs / 1000} s per shop or seller). ` +
        'Answered by the gateway in its own format (SPEC GAP: the body is our choice, see RateLimitBody).',
      headers: {
        'Retry-After': { description: 'Whole seconds to wait', schema: { type: 'integer', minimum: 0 } },
      },
      content: json(schemas.RateLimitBody),
    };
  }
  if (isTokenEndpoint(op)) {
    const oauthError = json(schemas.OAuthErrorResponse);
    out['4XX'] = { description: 'OAuth 2.0 error (`error` names the case)', content: oauthError };
    out['5XX'] = { description: 'Server error, in the OAuth error format', content: oauthError };
  } else {
    const envelope = json(schemas.ErrorEnvelope);
    out['4XX'] = {
      description: 'Client error: the error envelope (match on status and `errors[].code`)',
      content: envelope,
    };
    out['5XX'] = {
      description: 'Server or upstream error: the error envelope (retry with backoff)',
      content: envelope,
    };
  }
  return out;
}

function operationObject(op: Operation, c: Components): Json {
  const out: Json = { operationId: op.id, tags: [tagOf(op.id)], summary: op.summary };
  if (op.stagingOnly) {
    out.description = 'Staging only: the production host does not serve this operation.';
    out['x-staging-only'] = true;
    out.servers = [{ url: STAGING_BASE_URL, description: 'Staging' }];
  }
  if (op.group) out['x-rate-group'] = op.group;
  const params = parameters(op, c);
  if (params.length) out.parameters = params;
  if (op.body)
    out.requestBody = {
      required: true,
      content: { [isTokenEndpoint(op) ? FORM : JSON_TYPE]: { schema: c.schema(op.body) } },
    };
  out.responses = responses(op, c);
  out.security = security(op);
  return out;
}

function documentOperation(): Json {
  return {
    operationId: OPENAPI_DOCUMENT_OPERATION_ID,
    tags: [tagOf(OPENAPI_DOCUMENT_OPERATION_ID)],
    summary: 'This OpenAPI document (YAML)',
    responses: {
      '200': { description: 'The document', content: { 'application/yaml': { schema: { type: 'string' } } } },
    },
    security: [],
  };
}

export function openApiDocument(): Json {
  const c = new Components();
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    const item = (paths[op.path] ??= {});
    item[op.method.toLowerCase()] = operationObject(op, c);
  }
  paths[OPENAPI_DOCUMENT_PATH] = { get: documentOperation() };
  const tags = [...new Set([...OPERATIONS.map((op) => op.id), OPENAPI_DOCUMENT_OPERATION_ID].map(tagOf))];
  const tokenUrl = `${PRODUCTION_BASE_URL}${schemas.GRANT_ENDPOINT_PATH}`;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace Selling API',
      version: 'v1',
      description:
        'Generated by selling-kit from its operation table and zod schemas (packages/api-client/src/openapi). ' +
        'Choices where the specification is silent are marked SPEC GAP in the kit and listed in its README.',
    },
    servers: [
      { url: PRODUCTION_BASE_URL, description: 'Production' },
      { url: STAGING_BASE_URL, description: 'Staging' },
    ],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: c.sorted(),
      securitySchemes: {
        [OAUTH_SCHEME]: {
          type: 'oauth2',
          description: 'Cross-listers: authorization code with PKCE (S256), one token per seller.',
          flows: {
            authorizationCode: {
              authorizationUrl: schemas.AUTHORIZE_URL_PRODUCTION,
              tokenUrl,
              refreshUrl: tokenUrl,
              scopes: Object.fromEntries(schemas.SCOPES.map((scope) => [scope, scope.replace('_', ' ')])),
            },
          },
        },
        [API_KEY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'Direct partners: one API key per shop, sent as a bearer token.',
        },
      },
    },
  };
}
