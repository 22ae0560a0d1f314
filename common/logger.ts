// One pino logger factory for every part, so redaction is the same everywhere.
import { pino, type Logger, type LoggerOptions } from 'pino';
import { logContextFields } from './log-context.js';

export type { Logger };

/** Field names whose values are secrets or personal data, wherever they appear (two levels deep). */
const SENSITIVE_KEYS = [
  'authorization',
  'x-api-key',
  'cookie',
  'password',
  'secret',
  'keySecret',
  'appSecret',
  'hmacSecret',
  'apiKey',
  'token',
  'access_token',
  'accessToken',
  'code',
  'cli',
  'endpoint',
  'phoneNumber',
  'number',
  'identity',
  'msisdn',
  'to',
  'from',
  'destination',
];

const REDACT_PATHS = [
  ...SENSITIVE_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`].map((p) => (k.includes('-') ? p.replace(k, `["${k}"]`) : p))),
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-platform-webhook-signature"]',
  'req.headers["x-service-signature"]',
];

const SENSITIVE_NAMES = new Set(SENSITIVE_KEYS.map((k) => k.toLowerCase()));

/** Whether a field, query parameter or path parameter of this name holds a secret or personal data. */
export function isSensitiveName(name: string): boolean {
  return SENSITIVE_NAMES.has(name.toLowerCase());
}

/** Masks anything that looks like a phone number (7+ digits, optional +) inside free text. */
export function maskPhoneNumbers(text: string): string {
  return text.replace(/\+?\d[\d ()-]{5,}\d/g, (m) => {
    const digits = m.replace(/\D/g, '');
    return digits.length >= 7 ? `${m.startsWith('+') ? '+' : ''}***${digits.slice(-2)}` : m;
  });
}

export interface CreateLoggerOptions {
  name?: string;
  level?: string;
  /** Where to write; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: CreateLoggerOptions = {}): Logger {
  const options: LoggerOptions = {
    name: opts.name ?? 'relayflow',
    level: opts.level ?? process.env.RELAYFLOW_LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // Inside an activity: the process's workflowId and runId on every line (common/log-context.ts).
    mixin: logContextFields,
    hooks: {
      // Free-text messages may carry numbers the structured redaction cannot see.
      logMethod(args, method) {
        const masked = args.map((a) => (typeof a === 'string' ? maskPhoneNumbers(a) : a)) as typeof args;
        method.apply(this, masked);
      },
    },
  };
  return opts.destination ? pino(options, opts.destination as pino.DestinationStream) : pino(options);
}
