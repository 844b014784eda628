// The OpenAPI 3.1 document of the Selling API, generated from the operation table and the core's zod
// schemas (zod's own JSON Schema output): nothing here restates a path, a field or a scope. The simulator
// serves it at OPENAPI_DOCUMENT_PATH and `pnpm build` writes it to packages/api-client/openapi.yaml.
import { z } from 'zod/v4';
import { OPERATIONS, type Operation } from '../core/operations.ts';
import { PRODUCTION_BASE_URL, STAGING_BASE_URL } from '../core/request.ts';
import { RATE_LIMITS } from '../core/rate-limits.ts';
import * as schemas from '../core/schemas/index.ts';

/** Where the public service (and the simulator) serve the document (public reference). */
export const OPENAPI_DOCUMENT_PATH = '/api-docs/openapi.yaml';

type Json = Record<string, unknown>;

const OAUTH = 'oauth2';
const API_KEY = 'apiKey';
/** The token endpoint is OAuth 2.0's: a form body, and its own error format (RFC 6749 §5.2). */
const FORM = 'application/x-www-form-urlencoded';

/** Every zod schema the core exports, by export name: components are named after them. */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)))
    if (value instanceof z.ZodType && !names.has(value)) names.set(value, name);
  return names;
}

/** A schema as JSON Schema 2020-12, as the service takes it (`input`) or answers it (`output`). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Json;
  return rest;
}

class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly names = namedSchemas();

  /** A `$ref` to the named component (created on first use); unnamed schemas are inlined. */
  ref(schema: z.ZodType, io: 'input' | 'output'): Json {
    const name = this.names.get(schema);
    if (!name) return jsonSchema(schema, io);
    this.schemas[name] ??= jsonSchema(schema, io);
    return { $ref: `#/components/schemas/${name}` };
  }
}

function pathParameters(op: Operation): Json[] {
  return [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: name === 'productId' ? { type: 'integer', minimum: 1 } : { type: 'string', minLength: 1 },
  }));
}

function queryParameters(op: Operation): Json[] {
  if (!op.query) return [];
  const object = jsonSchema(op.query, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: object.required?.includes(name) ?? false,
    schema,
  }));
}

function security(op: Operation): Json[] {
  if (op.auth === 'none') return [];
  const oauth = op.scopesAnyOf?.length
    ? op.scopesAnyOf.map((scope) => ({ [OAUTH]: [scope] }))
    : [{ [OAUTH]: [...op.scopes] }];
  return [...oauth, { [API_KEY]: [] }];
}

function responses(op: Operation, c: Components): Json {
  const json = (schema: z.ZodType) => ({ 'application/json': { schema: c.ref(schema, 'output') } });
  const out: Json = {
    '200': op.response
      ? { description: 'Success', content: json(op.response) }
      : { description: 'Success (empty body)' },
  };
  if (op.group) {
    const { limit, windowMs } = RATE_LIMITS[op.group];
    out['429'] = {
      description: `Rate limit of the "${op.group}" group exceeded (${limit} requests per ${windowMs / 1000} s per shop or seller); answered by the gateway in its own format`,
      headers: {
        'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 0 } },
      },
      content: json(schemas.RateLimitBody),
    };
  }
  out.default =
    op.id === 'auth.token'
      ? { description: 'OAuth 2.0 error', content: json(schemas.OAuthErrorResponse) }
      : { description: 'Error: HTTP status plus the error envelope', content: json(schemas.ErrorEnvelope) };
  return out;
}

function operationObject(op: Operation, c: Components): Json {
  const parameters = [...pathParameters(op), ...queryParameters(op)];
  const out: Json = {
    operationId: op.id,
    tags: [op.id.split('.')[0]],
    summary: op.summary,
  };
  if (op.stagingOnly) {
    out.description = 'Staging only: the production host does not serve this operation.';
    out['x-staging-only'] = true;
  }
  if (op.group) out['x-rate-group'] = op.group;
  if (parameters.length) out.parameters = parameters;
  if (op.body) {
    const type = op.id === 'auth.token' ? FORM : 'application/json';
    out.requestBody = { required: true, content: { [type]: { schema: c.ref(op.body, 'input') } } };
  }
  out.responses = responses(op, c);
  out.security = security(op);
  return out;
}

/** The document served at OPENAPI_DOCUMENT_PATH itself. */
function documentOperation(): Json {
  return {
    operationId: 'docs.openapi',
    tags: ['docs'],
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
  const tags = [...new Set(OPERATIONS.map((op) => op.id.split('.')[0]!)), 'docs'].map((name) => ({ name }));
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
    tags,
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(c.schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        [OAUTH]: {
          type: 'oauth2',
          description: 'Cross-listers: one token per seller.',
          flows: {
            authorizationCode: {
              authorizationUrl: schemas.AUTHORIZE_URL_PRODUCTION,
              tokenUrl: `${PRODUCTION_BASE_URL}${schemas.GRANT_ENDPOINT_PATH}`,
              refreshUrl: `${PRODUCTION_BASE_URL}${schemas.GRANT_ENDPOINT_PATH}`,
              scopes: Object.fromEntries(schemas.SCOPES.map((scope) => [scope, scope.replace('_', ' ')])),
            },
          },
        },
        [API_KEY]: {
          type: 'http',
          scheme: 'bearer',
          description: 'Direct partners: one API key per shop, sent as a bearer token.',
        },
      },
    },
  };
}
