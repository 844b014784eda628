// Local pre-validation: before anything is sent, a request is checked against its operation's
// schemas (path parameters, query, body) and the spec's stateless rules (./rules), and the result is a
// list of violations naming the field and the rule. Transport-free and n8n-safe.
import type { z } from 'zod/v4';
import { dotSegmentViolation, isDotSegment, type Operation } from './operations.ts';
import { ProductId, Sku, Slug } from './schemas/products.ts';
import { checkOffer, type OfferProductFacts } from './rules/offers.ts';
import { checkProductPatch, checkProductWrite } from './rules/products.ts';
import { checkRefund, type RefundOrderFacts } from './rules/refunds.ts';
import { violationsFromZod, type RuleOptions, type RuleViolation } from './rules/violations.ts';

const PATH_PARAM_SCHEMAS: Record<string, z.ZodType> = { sku: Sku, productId: ProductId, slug: Slug };

export interface RequestParts {
  pathParams?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** What the caller knows beyond the request, for the rules that compare against it. */
export interface ValidationContext extends RuleOptions {
  /** The product's current prices (PATCH: discount and auto-offer prices below the price). */
  current?: { price_amount: string; discount_price?: string };
  /** The product an offer is for (currency, percentage below the price, sizes). */
  product?: OfferProductFacts;
  /** What an order may still refund (amounts not above the product and shipping prices). */
  order?: RefundOrderFacts;
}

/** Schema checks of the path parameters and the query. */
function paramViolations(op: Operation, parts: RequestParts): RuleViolation[] {
  const out: RuleViolation[] = [];
  for (const [name, value] of Object.entries(parts.pathParams ?? {})) {
    if (typeof value === 'string' && isDotSegment(value)) {
      out.push(dotSegmentViolation(name, value));
      continue;
    }
    const schema = PATH_PARAM_SCHEMAS[name];
    if (!schema) continue;
    const r = schema.safeParse(value);
    if (!r.success) out.push(...violationsFromZod(r.error, name));
  }
  if (op.query && parts.query) {
    const defined = Object.fromEntries(Object.entries(parts.query).filter(([, v]) => v !== undefined));
    const r = op.query.safeParse(defined);
    if (!r.success) out.push(...violationsFromZod(r.error));
  }
  return out;
}

/** The body's rules: the spec's business rules where they exist, the operation's schema otherwise. */
function bodyViolations(op: Operation, body: unknown, ctx: ValidationContext): RuleViolation[] {
  const id = op.id;
  if (id === 'products.create') return checkProductWrite('create', body, ctx);
  if (id.startsWith('products.update')) return checkProductWrite('put', body, ctx);
  if (id.startsWith('products.patch')) return checkProductPatch(body, ctx.current, ctx);
  if (id.startsWith('offers.submit')) return checkOffer(body, ctx.product, ctx);
  if (id === 'refunds.create') return checkRefund(body, ctx.order);
  if (!op.body || id === 'auth.token') return [];
  const r = op.body.safeParse(body);
  return r.success ? [] : violationsFromZod(r.error);
}

/** Every local check of one operation: path parameters, query, body schema and business rules. */
export function validateOperation(
  op: Operation,
  parts: RequestParts,
  ctx: ValidationContext = {},
): RuleViolation[] {
  return [...paramViolations(op, parts), ...bodyViolations(op, parts.body, ctx)];
}
