// Observability end to end (issue 12 §4): `selling-kit bulk` and `selling-kit worker` with
// SELLING_KIT_TRACING=otlp export one trace — the CLI's start of the job, the workflow, its activities
// and each Selling API request — to an OTLP/HTTP collector (a small one in this test, on 127.0.0.1);
// the worker's --metrics-address serves Prometheus text whose counters moved during the job.
// @needs temporal
import { createServer, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator } from '@selling-kit/simulator';
import { freePort } from '@selling-kit/simulator/testing';
import { EXAMPLE_FEED, runCli, startCliStack, type CliEnv } from './helpers.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

let sim: RunningSimulator;
let collector: Server;
const spans: OtlpSpan[] = [];
const bodies: string[] = [];

/** A minimal OTLP/HTTP trace receiver (JSON encoding, what the exporter sends by default). */
function startCollector(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(body);
      const doc = JSON.parse(body) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: {
            spans: (Omit<OtlpSpan, 'service' | 'attributes'> & {
              attributes?: { key: string; value: Record<string, unknown> }[];
            })[];
          }[];
        }[];
      };
      for (const rs of doc.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              ...s,
              service,
              attributes: Object.fromEntries(
                (s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]),
              ),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let ctx: CliEnv;
let worker: { stop(): Promise<void> } | undefined;
let metricsPort = 0;

beforeAll(async () => {
  collector = await startCollector();
  metricsPort = await freePort();
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  ({ sim, ctx, worker } = await startCliStack(
    {
      DEMO_KEY: 'pak_demo_selling_kit',
      SELLING_KIT_TRACING: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint,
      SELLING_KIT_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
    },
    { obs: 'DEMO_KEY' },
  ));
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await sim?.close();
  await new Promise((r) => collector?.close(r));
}, 60_000);

describe('tracing and metrics through the CLI and its worker', () => {
  it('one trace from `selling-kit bulk` to every create request; metrics moved; no secret exported', async () => {
    // The example feed's first 8 rows: all valid.
    const feed = join(ctx.home, 'obs.csv');
    writeFileSync(feed, readFileSync(EXAMPLE_FEED, 'utf8').split('\n').slice(0, 9).join('\n') + '\n');
    const run = await runCli(ctx, ['--json', 'bulk', feed, '--shop', 'obs', '--op', 'create'], {
      timeoutMs: 120_000,
    });
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ state: 'finished', total: 8, ok: 8, failed: 0, invalid: 0 });

    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^selling_kit_requests\{group="create_update",status="2xx"\} 8$/m);
    expect(metrics).toMatch(/^selling_kit_items\{[^}]*outcome="ok"[^}]*\} 8$/m);

    await worker!.stop(); // the worker flushes its spans on the way out
    worker = undefined;
    const start = spans.find((s) => s.service === 'selling-kit-cli' && /^StartWorkflow:bulk/.test(s.name));
    expect(start).toBeDefined();
    const trace = spans.filter((s) => s.traceId === start!.traceId);
    const named = (re: RegExp) => trace.filter((s) => re.test(s.name));
    const run0 = named(/^RunWorkflow:bulkListingWorkflow$/);
    expect(run0.length).toBeGreaterThanOrEqual(1);
    expect(run0.every((s) => s.service === 'selling-kit-worker')).toBe(true);
    const sends = named(/^RunActivity:sendBatch$/);
    expect(sends.length).toBeGreaterThanOrEqual(1);
    const requests = named(/^selling-api products\.create$/);
    expect(requests).toHaveLength(8);
    const sendIds = new Set(sends.map((s) => s.spanId));
    for (const r of requests) {
      expect(sendIds.has(r.parentSpanId!)).toBe(true);
      expect(r.attributes['http.response.status_code']).toBe(200);
    }
    const all = bodies.join('\n');
    expect(all).not.toContain('pak_demo_selling_kit');
    expect(all).not.toContain(ctx.env.SELLING_KIT_CODEC_KEY!);
  }, 240_000);
});
