// A worker's part of the traces (common/tracing.ts): activities run in a span that continues the workflow's
// trace, and the workflow's own spans (RunWorkflow, StartActivity, ...), made inside Temporal's sandbox, reach
// the worker through a sink.
//
// OpenTelemetry's workflow interceptors are in every workflow bundle, loaded only in a run whose start carried a
// trace context (processes/shared/workflow/tracing-interceptors.ts: a prebuilt bundle cannot depend on the environment),
// so the worker always registers its `exporter` sink; while tracing is off, the sink drops any spans. The
// interceptors only add the trace context to the headers of the commands a workflow sends, which replay does
// not compare: a history replays the same with or without them (test/workflows/replay).
import { createRequire } from 'node:module';
import type { ActivityInterceptorsFactory, InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetrySinks,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowInfo } from '@temporalio/workflow';
import { tracerOf, tracingPipeline, type TracingPipeline } from '../common/tracing.js';
import { tracingClientInterceptor } from '../common/temporal-tracing.js';

export const WORKER_SERVICE = 'relayflow-worker';

/** OpenTelemetry's workflow interceptors loaded in every run, as a workflow interceptor module: replay checks only. */
export const OTEL_WORKFLOW_INTERCEPTORS_MODULE = createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** Each activity in a span (RunActivity:<type>) under the workflow's StartActivity span; its log lines carry the trace ID. */
export const activityTracing: ActivityInterceptorsFactory = (ctx) => ({
  inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracerOf(WORKER_SERVICE) }),
  outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
});

/** The worker's client (activities that signal workflows) continues the activity's trace. */
export const workerClientInterceptors = (): NonNullable<WorkerInterceptors['client']> => ({ workflow: [tracingClientInterceptor(WORKER_SERVICE)] });

const exporters = new WeakMap<TracingPipeline, ReturnType<typeof makeWorkflowExporter>>();

/**
 * The `exporter` sink the workflow interceptors send their ended spans to: the worker's pipeline when
 * tracing runs, nowhere otherwise. The SDK adds the whole WorkflowInfo to each span's attributes (memo,
 * search attributes, last result...): only the execution's identity is passed on.
 */
export function workflowSpanSinks(): InjectedSinks<OpenTelemetrySinks> {
  return {
    exporter: {
      export: {
        fn: (info, spans) => {
          const pipeline = tracingPipeline(WORKER_SERVICE);
          if (!pipeline) return;
          let exporter = exporters.get(pipeline);
          if (!exporter) exporters.set(pipeline, (exporter = makeWorkflowExporter(pipeline.processor, pipeline.resource)));
          const identity = {
            temporalWorkflowId: info.workflowId,
            run_id: info.runId,
            temporalWorkflowType: info.workflowType,
            temporalTaskQueue: info.taskQueue,
          };
          return exporter.export.fn(identity as unknown as WorkflowInfo, spans);
        },
      },
    },
  };
}
