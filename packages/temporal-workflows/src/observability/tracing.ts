// OpenTelemetry tracing, off by default: one trace from the client that starts a job (the CLI) through the
// workflow and its activities down to each Selling API request. `SELLING_KIT_TRACING=otlp` turns it on in
// a process; spans go to an OTLP/HTTP collector named by the standard variables
// (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, default
// http://localhost:4318/v1/traces). Temporal's interceptors carry the context in workflow headers; the
// request spans come from the api-client's logging hook (`requestSpanLogger`), so no transport is wrapped.
// Spans carry operation ids, methods, statuses and error codes: never a credential, a body or a path.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { context, propagation, trace, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerOptions as TemporalWorkerOptions } from '@temporalio/worker';
import type { Logger, LogEvent } from '@selling-kit/api-client';

/** `otlp` turns tracing on in the process that reads it (CLI, worker); unset or anything else: off. */
export const TRACING_ENV = 'SELLING_KIT_TRACING';
/** The tracer (instrumentation scope) name of our own spans. */
export const TRACER_NAME = 'selling-kit';

/** Request spans open at once before the oldest is ended unanswered. */
const MAX_OPEN_SPANS = 1_000;

/** The workflow interceptor module bundled into every worker's workflow code (worker.ts, `workflowCode`). */
export const TRACING_WORKFLOW_MODULE = fileURLToPath(
  // Beside this module: `.ts` in the repository, `.js` when installed from the package.
  new URL(`./workflow-interceptors${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/** The workflow span sink of a worker that does not trace: the workflow interceptors' spans are dropped. */
export const dropSpans: NonNullable<TemporalWorkerOptions['sinks']> = {
  exporter: { export: { fn: () => undefined, callDuringReplay: false } },
};

export interface Tracing {
  /** For `new Client({ interceptors: { workflow } })`: starts and signals carry the trace. */
  clientInterceptors(): WorkflowClientInterceptor[];
  /** Activity interceptors and the workflow span exporter (a sink), for `Worker.create`. */
  workerOptions(): Pick<TemporalWorkerOptions, 'interceptors' | 'sinks'>;
  /** Sends the spans still queued (a short-lived command calls it before it exits). */
  flush(): Promise<void>;
  /** Flushes and stops the exporter (a worker, on its way out). */
  shutdown(): Promise<void>;
}

/** True when `env` turns tracing on. */
export const tracingEnabled = (env: NodeJS.ProcessEnv = process.env) =>
  env[TRACING_ENV]?.trim().toLowerCase() === 'otlp';

let installed: Tracing | undefined;

/**
 * Starts tracing for this process (once; later calls answer the same one) with spans from `serviceName`,
 * exported over OTLP/HTTP — or through `processor` (tests). Registers the global tracer provider, the
 * async-hooks context manager and W3C propagation.
 */
export function startTracing(serviceName: string, processor?: SpanProcessor): Tracing {
  if (installed) return installed;
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = processor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const tracer = provider.getTracer(TRACER_NAME);
  installed = {
    clientInterceptors: () => [new OpenTelemetryWorkflowClientInterceptor({ tracer })],
    workerOptions: () => ({
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      sinks: { exporter: makeWorkflowExporter(spanProcessor, resource) },
    }),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return installed;
}

/** Tracing when `env` turns it on (see TRACING_ENV), else undefined. */
export function tracingFromEnv(serviceName: string, env: NodeJS.ProcessEnv = process.env) {
  return tracingEnabled(env) ? startTracing(serviceName) : undefined;
}

/**
 * An api-client logger that makes one CLIENT span per attempt (`selling-api <operationId>`), a child of
 * whatever span is active (the activity's), then hands the event to `next`. Without a registered tracer
 * provider OpenTelemetry's API is a no-op, so this costs next to nothing when tracing is off.
 */
export function requestSpanLogger(next?: Logger): Logger {
  const open = new Map<string, Span>();
  const tracer = () => trace.getTracer(TRACER_NAME);
  return (event: LogEvent) => {
    if (event.type === 'request') {
      const span = tracer().startSpan(
        `selling-api ${event.operationId}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': event.method,
            'selling_api.operation_id': event.operationId,
            'selling_api.request_id': event.requestId,
            'selling_api.attempt': event.attempt,
          },
        },
        context.active(),
      );
      open.set(`${event.requestId}:${event.attempt}`, span);
      // An attempt whose answer never came (aborted mid-flight): its span ends unanswered, never piles up.
      if (open.size > MAX_OPEN_SPANS) {
        const [oldest, stale] = open.entries().next().value!;
        open.delete(oldest);
        stale.setStatus({ code: SpanStatusCode.ERROR, message: 'no answer' });
        stale.end();
      }
    } else if (event.type === 'response' || event.type === 'transport_error') {
      const key = `${event.requestId}:${event.attempt}`;
      const span = open.get(key);
      if (span) {
        open.delete(key);
        if (event.type === 'response') {
          span.setAttribute('http.response.status_code', event.status);
          if (event.code) span.setAttribute('selling_api.error_code', event.code);
          if (event.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: event.code });
        } else span.setStatus({ code: SpanStatusCode.ERROR, message: event.kind });
        span.end();
      }
    }
    next?.(event);
  };
}
