// The document's schemas: zod's own JSON Schema output (`z.toJSONSchema`) for the core's wire schemas, with
// every composite schema the core exports (objects, unions, enums, arrays) hoisted into
// `components.schemas` under its export name, so a reused wire object (Address, ErrorItem, Picture…) is
// written once and referenced. Deterministic: names come from the exports, components are sorted.
import { z } from 'zod/v4';
import * as schemas from '../core/schemas/index.ts';

export type Json = Record<string, unknown>;

/** zod kinds that become named components; scalars (Money, Sku, IsoDateTime…) stay inline where used. */
const NAMED_KINDS = new Set(['object', 'union', 'enum', 'array', 'record', 'intersection']);
const COMPONENT_PREFIX = '#/components/schemas/';

/**
 * Every composite schema the core exports, by export name (the first name alphabetically when one schema
 * has two): zod extracts a schema carrying an `id` into `$defs`, which `Components` hoists.
 */
function namedRegistry() {
  const registry = z.registry<z.core.GlobalMeta & { id: string }>();
  const exports = Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of exports)
    if (value instanceof z.ZodType && NAMED_KINDS.has(value.def.type) && !registry.has(value))
      registry.add(value, { ...z.globalRegistry.get(value), id: name });
  return registry;
}

/**
 * JSON Schema 2020-12 of what the schema accepts (`io: 'input'`): the core's schemas parse wire data in
 * both directions (the simulator parses requests, the client parses responses), so their input side is
 * the wire format — a default makes a field optional on the wire, a transform's input is what travels.
 */
export function wireSchema(schema: z.ZodType, metadata?: z.core.$ZodRegistry<z.core.GlobalMeta>): Json {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    ...(metadata ? { metadata } : {}),
  }) as Json;
  return rest;
}

/** `#/$defs/Name` (zod's local reference) → `#/components/schemas/Name`, everywhere in a value. */
function hoistRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hoistRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, COMPONENT_PREFIX) : hoistRefs(v),
    ]),
  );
}

export class Components {
  private readonly registry = namedRegistry();
  private readonly defined = new Map<string, Json>();
  private readonly names = new Set(Object.keys(schemas));

  /** A request or response schema: a `$ref` when the core names it, else inline; named parts are hoisted. */
  schema(schema: z.ZodType): Json {
    const { $defs, ...root } = wireSchema(schema, this.registry) as Json & { $defs?: Record<string, Json> };
    for (const [name, def] of Object.entries($defs ?? {})) {
      // zod names an unnamed recursive part `__schemaN`, per conversion: it would clash across them.
      if (!this.names.has(name))
        throw new Error(`OpenAPI: export the recursive part of this schema from core/schemas (${name})`);
      this.defined.set(name, hoistRefs(def) as Json);
    }
    return hoistRefs(root) as Json;
  }

  /** A parameter's schema: always inline (path and query values are scalars). */
  inline(schema: z.ZodType): Json {
    return wireSchema(schema);
  }

  /** `components.schemas`, sorted by name. */
  sorted(): Record<string, Json> {
    return Object.fromEntries([...this.defined].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
