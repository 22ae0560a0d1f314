// OpenTelemetry traces, off unless an OTLP endpoint is configured (common/config/runtime.ts, tracingOf): one
// tracer provider per service (relayflow-api, relayflow-worker), each exporting OTLP/HTTP JSON in batches.
// Nothing is registered as the global tracer provider: a process that runs the API and a worker (npm start,
// the tests) keeps both service names. What is global is what carries a trace across calls: the W3C trace
// context propagator (the Temporal interceptors put `traceparent` in headers with it) and the
// AsyncLocalStorage context manager (the active span follows async work: a request's handler, an activity).
//
// tracerOf(service) is usable before tracing starts and whether or not it does: until startTracing(service)
// it makes non-recording spans, which cost next to nothing and export nothing.
import { context, diag, DiagLogLevel, propagation, ProxyTracerProvider, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from './config.js';
import type { Logger } from './logger.js';

export type TracedService = 'relayflow-api' | 'relayflow-worker';

/** A service's running pipeline: what the worker's workflow span sink hands the isolate's spans to. */
export interface TracingPipeline {
  readonly provider: BasicTracerProvider;
  readonly processor: SpanProcessor;
  readonly resource: Resource;
  readonly tracer: Tracer;
}

const running = new Map<TracedService, TracingPipeline>();
/** Hands out no-op tracers (a proxy provider without a delegate). */
const noop = new ProxyTracerProvider();
let globalsInstalled = false;

/** The service's tracer, resolved at each span: the running pipeline's, or a no-op one while tracing is off. */
export function tracerOf(service: TracedService): Tracer {
  const current = () => running.get(service)?.tracer ?? noop.getTracer('relayflow');
  return {
    startSpan: (...args) => current().startSpan(...args),
    startActiveSpan: ((...args: unknown[]) => (current().startActiveSpan as (...a: unknown[]) => unknown)(...args)) as Tracer['startActiveSpan'],
  };
}

/** Whether spans of the service are recorded and exported now. */
export const isTracing = (service: TracedService): boolean => running.has(service);

export const tracingPipeline = (service: TracedService): TracingPipeline | undefined => running.get(service);

/**
 * Starts exporting the service's spans when `config` names a traces endpoint; idempotent (the first
 * configuration of a service wins until shutdownTracing). buildApp and createWorker call it with their
 * config, so every way of running them traces alike. Returns whether the service is traced.
 */
export function startTracing(service: TracedService, config: TracingConfig | undefined, logger?: Logger): boolean {
  if (running.has(service)) return true;
  if (!config?.tracesUrl) return false;
  installGlobals(logger);
  const resource = new Resource({
    ...Resource.default().attributes,
    // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, service.namespace, ...); the service name is ours.
    ...envDetectorSync.detect().attributes,
    'service.name': service,
  });
  // Headers, timeout and compression: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)HEADERS etc. itself.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesUrl }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  running.set(service, { provider, processor, resource, tracer: provider.getTracer('relayflow') });
  logger?.info({ service, tracesTo: new URL(config.tracesUrl).origin }, 'tracing: exporting spans by OTLP/HTTP');
  return true;
}

function installGlobals(logger: Logger | undefined): void {
  if (globalsInstalled) return;
  globalsInstalled = true;
  // False when something else installed its own first: theirs is kept (W3C and AsyncLocalStorage are the usual ones).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // Export failures (collector down, refused) reach OpenTelemetry's diagnostics: warnings and errors to the log.
  if (logger) {
    const log = logger.child({ component: 'otel' });
    diag.setLogger(
      {
        error: (msg, ...args) => log.error({ detail: args.map(String) }, msg),
        warn: (msg, ...args) => log.warn({ detail: args.map(String) }, msg),
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      DiagLogLevel.WARN,
    );
  }
}

/** Exports every ended span now (tests; before a process exits). */
export async function flushTracing(): Promise<void> {
  await Promise.all([...running.values()].map((p) => p.provider.forceFlush()));
}

/** Flushes and stops every service's pipeline; a later startTracing starts afresh. */
export async function shutdownTracing(): Promise<void> {
  const pipelines = [...running.values()];
  running.clear();
  await Promise.all(pipelines.map((p) => p.provider.shutdown()));
}
