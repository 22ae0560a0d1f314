// OpenTelemetry's workflow interceptors, loaded only in a workflow whose start carried a trace context (the
// `_tracer-data` header, which the client's tracing interceptor adds while tracing is on). Loaded for every
// workflow, their ~116 modules were evaluated again for each new workflow and held in the worker's cache with
// it: about half of a waiting process's memory (2.6 -> 1.3 MB) and ~14% of the workflow thread, paid while
// tracing was off. The choice is made once per run from its start headers, so a replay makes it again.
import { type WorkflowInterceptors, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** @temporalio/interceptors-opentelemetry's TRACE_HEADER (not imported: that would load what this module defers). */
export const TRACE_HEADER = '_tracer-data';

type Otel = typeof import('@temporalio/interceptors-opentelemetry/lib/workflow/index.js');
type Inbound = NonNullable<WorkflowInterceptors['inbound']>[number];
type Outbound = NonNullable<WorkflowInterceptors['outbound']>[number];
type Internals = NonNullable<WorkflowInterceptors['internals']>[number];
// Each method takes (input, next); called through these loose types so one forwarder serves them all.
type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** Methods OpenTelemetry's interceptors implement (1.24); any other passes straight to `next`. */
const INBOUND = ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'] as const;
const OUTBOUND = [
  'scheduleActivity',
  'scheduleLocalActivity',
  'startNexusOperation',
  'startChildWorkflowExecution',
  'continueAsNew',
  'signalWorkflow',
  'getLogAttributes',
  'getMetricTags',
] as const;
const INTERNALS = ['dispose'] as const;

export const interceptors: WorkflowInterceptorsFactory = () => {
  let traced: { inbound: Inbound; outbound: Outbound; internals: Internals } | undefined;
  // Not async: an untraced workflow gets no extra await (yield point) from this module.
  const forward = <T extends object>(names: readonly string[], side: () => T | undefined) =>
    Object.fromEntries(
      names.map((name) => [
        name,
        (input: unknown, next: (input: unknown) => unknown) => {
          const target = side() as Record<string, Method | undefined> | undefined;
          const method = target?.[name];
          return method ? method.call(target, input, next) : next(input);
        },
      ]),
    ) as T;
  const inbound = forward<Inbound>(INBOUND, () => traced?.inbound);
  const startRun = inbound.execute!;
  inbound.execute = (input, next) => {
    if (input.headers[TRACE_HEADER] !== undefined) {
      // Webpack's require: the package is in the bundle, evaluated only here.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const otel = require('@temporalio/interceptors-opentelemetry/lib/workflow/index.js') as Otel;
      traced = {
        inbound: new otel.OpenTelemetryInboundInterceptor(),
        outbound: new otel.OpenTelemetryOutboundInterceptor(),
        internals: new otel.OpenTelemetryInternalsInterceptor(),
      };
    }
    return startRun(input, next);
  };
  return {
    inbound: [inbound],
    outbound: [forward<Outbound>(OUTBOUND, () => traced?.outbound)],
    internals: [forward<Internals>(INTERNALS, () => traced?.internals)],
  };
};
