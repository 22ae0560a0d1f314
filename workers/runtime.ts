// Routes the Temporal SDK's and core's logs through pino, so worker logs are structured and redacted, and
// turns on the SDK's Prometheus exporter: the worker's /metrics.
import { Runtime, makeTelemetryFilterString, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import { ConfigError, type WorkerMetricsConfig } from '../common/config.js';
import { maskPhoneNumbers, type Logger } from '../common/logger.js';
import { metricsBindAddress } from './metrics.js';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * An error in the SDK's log metadata (`{ error }` of "Activity failed", workflow task failures): pino would
 * write `{}` for it. Its name, failure type and message, down the cause chain, with phone numbers masked: the
 * messages are the real ones here (failures are encrypted only in the history), and may quote the platform.
 */
function loggableError(err: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: err.name, message: maskPhoneNumbers(err.message) };
  const type = (err as { type?: unknown }).type;
  if (typeof type === 'string') out.type = type;
  if (err.cause instanceof Error && depth < 8) out.cause = loggableError(err.cause, depth + 1);
  return out;
}

class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly pino: Logger) {}
  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const fields = meta ? Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, v instanceof Error ? loggableError(v) : v])) : {};
    this.pino[LEVELS[level]](fields, message);
  }
  trace(m: string, meta?: LogMetadata) {
    this.log('TRACE', m, meta);
  }
  debug(m: string, meta?: LogMetadata) {
    this.log('DEBUG', m, meta);
  }
  info(m: string, meta?: LogMetadata) {
    this.log('INFO', m, meta);
  }
  warn(m: string, meta?: LogMetadata) {
    this.log('WARN', m, meta);
  }
  error(m: string, meta?: LogMetadata) {
    this.log('ERROR', m, meta);
  }
}

/**
 * Installs the process-wide Temporal runtime once. `handleSignals: false` leaves SIGINT/SIGTERM to the
 * caller (the dev runner shuts the parts down in order); the worker entry point lets the runtime handle them.
 * With `metrics`, the runtime serves the worker's /metrics: its URL is returned.
 */
export function installRuntime(logger: Logger, opts: { handleSignals: boolean; metrics?: WorkerMetricsConfig | undefined }): string | undefined {
  // The SDK shuts an idle runtime down (all workers and native connections closed); install again then.
  if (Runtime._instance) return undefined;
  const install = (metrics: WorkerMetricsConfig | undefined) =>
    Runtime.install({
      logger: new PinoTemporalLogger(logger.child({ component: 'temporal' })),
      shutdownSignals: opts.handleSignals ? ['SIGINT', 'SIGTERM'] : [],
      telemetryOptions: {
        logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
        // The worker's /metrics (workers/metrics.ts).
        ...(metrics ? { metrics: { prometheus: { bindAddress: metricsBindAddress(metrics) } } } : {}),
      },
    });
  try {
    install(opts.metrics);
  } catch (err) {
    const metrics = opts.metrics;
    if (!metrics || !/address already in use/i.test((err as Error).message)) throw err;
    const taken = `${metricsBindAddress(metrics)} is in use`;
    if (metrics.explicit) throw new ConfigError('RELAYFLOW_WORKER_METRICS_PORT', `${taken}: set another port, or "off"`);
    // The default port: a second worker on one machine (or npm start beside npm test) still runs.
    logger.warn({ bindAddress: metricsBindAddress(metrics) }, `worker metrics not served: ${taken} (set RELAYFLOW_WORKER_METRICS_PORT)`);
    install(undefined);
    return undefined;
  }
  if (!opts.metrics) return undefined;
  const url = `http://${metricsBindAddress(opts.metrics)}/metrics`;
  logger.info({ url }, 'worker metrics served');
  return url;
}
