// Routes the Temporal SDK's and core's logs through pino, so worker logs are structured and redacted.
import { Runtime, makeTelemetryFilterString, type LogLevel, type LogMetadata, type Logger as TemporalLogger } from '@temporalio/worker';
import type { Logger } from '../common/logger.js';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error',
};

export class PinoTemporalLogger implements TemporalLogger {
  constructor(private readonly pino: Logger) {}
  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    this.pino[LEVELS[level]](meta ?? {}, message);
  }
  trace(m: string, meta?: LogMetadata) { this.log('TRACE', m, meta); }
  debug(m: string, meta?: LogMetadata) { this.log('DEBUG', m, meta); }
  info(m: string, meta?: LogMetadata) { this.log('INFO', m, meta); }
  warn(m: string, meta?: LogMetadata) { this.log('WARN', m, meta); }
  error(m: string, meta?: LogMetadata) { this.log('ERROR', m, meta); }
}

/**
 * Installs the process-wide Temporal runtime once. `handleSignals: false` leaves SIGINT/SIGTERM to the
 * caller (the dev runner shuts the parts down in order); the worker entry point lets the runtime handle them.
 */
export function installRuntime(logger: Logger, opts: { handleSignals: boolean }): void {
  // The SDK shuts an idle runtime down (all workers and native connections closed); install again then.
  if (Runtime._instance) return;
  Runtime.install({
    logger: new PinoTemporalLogger(logger.child({ component: 'temporal' })),
    shutdownSignals: opts.handleSignals ? ['SIGINT', 'SIGTERM'] : [],
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}
