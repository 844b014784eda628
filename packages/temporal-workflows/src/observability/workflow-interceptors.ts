// The workflow interceptors bundled into every worker (worker.ts, `workflowCode`): OpenTelemetry's, for
// every workflow but the sale. A sale is one short workflow task whose latency is the product (a sale
// elsewhere must be marked here now); it has no update handler, so dropping the interceptors changes no
// command in its history, and its spans (dropped anyway without tracing) cost every sale a new set of
// interceptor objects and span calls through the sink.
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { WORKFLOW_TYPES } from '../contract.ts';

export const interceptors = (): WorkflowInterceptors =>
  workflowInfo().workflowType === WORKFLOW_TYPES.sale
    ? {}
    : {
        inbound: [new OpenTelemetryInboundInterceptor()],
        outbound: [new OpenTelemetryOutboundInterceptor()],
        internals: [new OpenTelemetryInternalsInterceptor()],
      };
