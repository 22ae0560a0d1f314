// The Temporal client interceptor that carries a trace into workflows: OpenTelemetry's (a span per start,
// signal, update, query...; the span's context in the `_tracer-data` header), used only while the service's
// tracing runs (common/tracing.ts). Decided at each call, so a client made before tracing starts (npm start
// makes the API's before buildApp starts its tracing) still traces, and one of a process without tracing adds
// no header at all.
import type { WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { isTracing, tracerOf, type TracedService } from './tracing.js';

export function tracingClientInterceptor(service: TracedService): WorkflowClientInterceptor {
  const otel = new OpenTelemetryWorkflowClientInterceptor({ tracer: tracerOf(service) });
  const on = () => isTracing(service);
  return {
    startWithDetails: (input, next) => (on() ? otel.startWithDetails(input, next) : next(input)),
    signal: (input, next) => (on() ? otel.signal(input, next) : next(input)),
    signalWithStart: (input, next) => (on() ? otel.signalWithStart(input, next) : next(input)),
    startUpdate: (input, next) => (on() ? otel.startUpdate(input, next) : next(input)),
    startUpdateWithStart: (input, next) => (on() ? otel.startUpdateWithStart(input, next) : next(input)),
    query: (input, next) => (on() ? otel.query(input, next) : next(input)),
    terminate: (input, next) => (on() ? otel.terminate(input, next) : next(input)),
    cancel: (input, next) => (on() ? otel.cancel(input, next) : next(input)),
    describe: (input, next) => (on() ? otel.describe(input, next) : next(input)),
  };
}
