// The contract check: reads the exchanges the simulator recorded during a test run (see the simulator's
// platform/contract-recorder.ts) and validates each against the generated OpenAPI document — the
// response's status and body always, the request's query and body when the typed client sent it and the
// service accepted it (2xx): a document describes the requests a service takes — a bad request the
// service refused, or one a fault answered before it was judged, proves nothing either way. Run: `node scripts/contract-check.ts <dir>`; exit 1 on violations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument, type ContractExchange } from '../src/openapi/index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a parsed JSON document
type Json = Record<string, any>;

export type Exchange = ContractExchange;

export interface Violation {
  kind: string;
  operationId: string;
  status: number;
  detail: string;
}

/** A query value as the schema's type reads it (query strings carry text). */
function coerce(raw: unknown, type: string | undefined): unknown {
  if (typeof raw !== 'string') return raw;
  if (type === 'integer' || type === 'number') return raw.trim() === '' ? raw : Number(raw);
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  return raw;
}

export class ContractChecker {
  private readonly doc = openApiDocument() as Json;
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly ops = new Map<string, Json>();

  constructor() {
    for (const fmt of ['date-time', 'date', 'uri', 'email', 'uuid']) this.ajv.addFormat(fmt, true);
    this.ajv.addSchema({ $id: 'openapi', components: this.doc.components });
    for (const item of Object.values(this.doc.paths as Json))
      for (const op of Object.values(item as Json)) this.ops.set((op as Json).operationId, op as Json);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(
        schema.$ref ? { $ref: `openapi${schema.$ref as string}` } : { ...schema, $id: `inline:${key}` },
      );
      this.compiled.set(key, v);
    }
    return v;
  }

  private errorsOf(v: ValidateFunction): string {
    return (v.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`)
      .join('; ');
  }

  check(x: Exchange): Violation[] {
    const op = this.ops.get(x.operationId);
    const out: Violation[] = [];
    const v = (kind: string, detail: string) =>
      out.push({ kind, operationId: x.operationId, status: x.status, detail });
    if (!op) return (v('undocumented operation', x.path), out);
    // The exact status, else its range (`4XX`, `5XX`), else `default`.
    const response =
      op.responses[String(x.status)] ??
      op.responses[`${Math.floor(x.status / 100)}XX`] ??
      op.responses.default;
    if (!response) return (v('undeclared status', `${x.method} ${x.path} answered ${x.status}`), out);
    const content = response.content as Json | undefined;
    if (!content) {
      if (x.body.length > 0) v('body where none is declared', x.body.slice(0, 120));
    } else {
      const [mediaType, media] = Object.entries(content)[0] as [string, Json];
      if (!x.contentType?.startsWith(mediaType))
        v('content type', `${x.contentType} instead of ${mediaType}`);
      else if (mediaType === 'application/json') {
        let body: unknown;
        try {
          body = JSON.parse(x.body);
        } catch {
          v('response not JSON', x.body.slice(0, 120));
        }
        if (body !== undefined) {
          const validate = this.validator(`${x.operationId} ${x.status} res`, media.schema);
          if (!validate(body)) v('response body', this.errorsOf(validate));
        }
      }
    }
    if (x.fromClient && x.status >= 200 && x.status < 300) {
      const declared = op.requestBody?.content as Json | undefined;
      if (declared) {
        const [, media] = Object.entries(declared)[0] as [string, Json];
        const validate = this.validator(`${x.operationId} req`, media.schema);
        if (!validate(x.requestBody)) v('request body', this.errorsOf(validate));
      } else if (x.requestBody !== undefined && x.requestBody !== null && x.requestBody !== '')
        v('request body where none is declared', JSON.stringify(x.requestBody).slice(0, 120));
      const params = new Map<string, Json>(
        ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p]),
      );
      for (const [name, raw] of Object.entries(x.query)) {
        const p = params.get(name);
        if (!p) {
          v('undeclared query parameter', name);
          continue;
        }
        const value = coerce(raw, p.schema.type as string | undefined);
        const validate = this.validator(`${x.operationId} q ${name}`, p.schema);
        if (!validate(value)) v('query parameter', `${name}=${String(raw)}: ${this.errorsOf(validate)}`);
      }
    }
    return out;
  }
}

export interface ContractReport {
  exchanges: number;
  files: number;
  violations: Map<string, { count: number; example: Violation }>;
}

export function checkRecordings(dir: string): ContractReport {
  const checker = new ContractChecker();
  const report: ContractReport = { exchanges: 0, files: 0, violations: new Map() };
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.ndjson'));
  } catch {
    return report;
  }
  for (const name of names) {
    report.files++;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (!line) continue;
      report.exchanges++;
      for (const violation of checker.check(JSON.parse(line) as Exchange)) {
        const key = `${violation.kind} · ${violation.operationId} · ${violation.status}`;
        const seen = report.violations.get(key);
        if (seen) seen.count++;
        else report.violations.set(key, { count: 1, example: violation });
      }
    }
  }
  return report;
}

export function formatReport(r: ContractReport): string {
  const head = `contract: ${r.exchanges} exchanges recorded in ${r.files} process(es), ${[...r.violations.values()].reduce((n, v) => n + v.count, 0)} violation(s)`;
  const lines = [...r.violations].map(([key, { count, example }]) => `  ${key} ×${count}: ${example.detail}`);
  return [head, ...lines].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/contract-check.ts <recordings dir>');
    process.exit(2);
  }
  const report = checkRecordings(dir);
  console.log(formatReport(report));
  process.exit(report.violations.size > 0 ? 1 : 0);
}
