// The worker's metrics: one Prometheus endpoint, the Temporal SDK's own exporter (the runtime's telemetry).
// relayflow's worker series go through the SDK's metric meter to the same endpoint: platform calls here,
// process endings from the workflows (processes/shared/workflow/process-ended-metric.ts). No second server, no prom-client.
import type { MetricCounter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import type { WorkerMetricsConfig } from '../common/config.js';
import type { PlatformCall } from '../platform/index.js';

/** The exporter's `bindAddress`: a socket address, IPv6 in brackets. */
export const metricsBindAddress = ({ host, port }: WorkerMetricsConfig) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

interface PlatformCounters {
  calls: MetricCounter;
  errors: MetricCounter;
}

// Per runtime: the SDK shuts an idle runtime down and a later one has its own meter.
const countersOf = new WeakMap<Runtime, PlatformCounters>();

/** The platform clients' observer in a worker (platform/call-observer.ts): the same series as the API's. */
export function countPlatformCall(call: PlatformCall): void {
  // Runtime.instance() would install a default runtime; a call made with none (or after shutdown) is not counted.
  const runtime = Runtime._instance;
  if (!runtime) return;
  let counters = countersOf.get(runtime);
  if (!counters) {
    const meter = runtime.metricMeter;
    counters = {
      calls: meter.createCounter('relayflow_platform_calls_total', 'calls', 'Platform calls by area and outcome (ok, error, cancelled)'),
      errors: meter.createCounter('relayflow_platform_call_errors_total', 'calls', 'Failed platform calls by area and error type'),
    };
    countersOf.set(runtime, counters);
  }
  counters.calls.add(1, { area: call.area, outcome: call.outcome });
  if (call.errorType) counters.errors.add(1, { area: call.area, type: call.errorType });
}
