// The transport-free core: schemas, product references, the operation table, rate-limit facts, request
// building, error mapping, local validation, webhook signatures and OAuth/PKCE helpers. Safe inside
// n8n: nothing but zod/v4 and node:crypto, no `process`, no timers, no globals.
export * from './schemas/index.ts';
export * from './product-ref.ts';
export * from './operations.ts';
export * from './rate-limits.ts';
export * from './timestamp-log.ts';
export * from './errors.ts';
export * from './transport.ts';
export * from './request.ts';
export * from './base-url.ts';
export * from './redact.ts';
export * from './validate.ts';
export * from './webhooks.ts';
export * from './oauth.ts';
export * from './rules/index.ts';
export * from './listings.ts';
export * from './catalogue.ts';
