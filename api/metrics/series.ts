// The API's Prometheus series, in one process-wide registry (as prom-client is meant to be used): the parts
// that count (the request hook, the start helper, the platform clients) import them from here.
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { PROCESS_KINDS } from '../../processes/kinds.js';
import type { PlatformCall } from '../../platform/index.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'relayflow_' });

const registers = [registry];

/** A counter in the API's registry, labelled by `labelNames`. */
const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers });

/** `route` is the route's pattern (/v1/processes/:processId), never the URL: IDs would explode the series. */
export const httpRequests = counter('relayflow_http_requests_total', 'API requests answered, by method, route pattern and status', [
  'method',
  'route',
  'status',
]);

// Up to 30 s: starts and updates may wait 20 s on Temporal before answering 504.
export const httpRequestDuration = new Histogram({
  name: 'relayflow_http_request_duration_seconds',
  help: 'API request duration until the answer was sent, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
  registers,
});

export const callbacks = counter('relayflow_callbacks_total', 'Platform callbacks received, by kind and outcome (accepted, duplicate, refused, failed)', [
  'kind',
  'outcome',
]);

export const processesStarted = counter(
  'relayflow_processes_started_total',
  'Processes the API created (a request that found its process running is not counted)',
  ['kind'],
);

/**
 * Verification starts the geo permissions refused (processes/verification/routes/geo-rules.ts), before anything was
 * started or sent: `via` api (POST /v1/verifications) or platform (a VerificationRequestEvent of a verification
 * an SDK started), `rule` the deciding rule's ID or `default`, `source` api, config or default.
 */
export const geoRefusals = counter(
  'relayflow_verification_geo_refusals_total',
  'Verification starts refused by the geo permissions, by method, country, rule, its source and where the start came from',
  ['method', 'country', 'rule', 'source', 'via'],
);

export const rateLimitRefusals = counter(
  'relayflow_verification_rate_limit_refusals_total',
  'Verification starts refused by a rate limit (429 rate_limited), by limit ID and what it counts by (a key name, country or prefix)',
  ['limit', 'by'],
);

export const pumpingDecisions = counter(
  'relayflow_verification_pumping_total',
  'SMS-pumping guard decisions the API applied: a start refused or moved to the configured method (by prefix), or a block lifted',
  ['prefix', 'decision'],
);

/** The signed intakes (/callbacks/<kind>) and how a delivery can end (api/plugins/metrics.ts). */
const CALLBACK_KINDS = ['verification', 'provisioning', 'senderid', 'conversation', 'mms', 'voice'] as const;
const CALLBACK_OUTCOMES = ['accepted', 'duplicate', 'refused', 'failed'] as const;

// Present at zero from the start: a series born at 1 shows no increase(), so alerts would miss the first event.
for (const kind of CALLBACK_KINDS) for (const outcome of CALLBACK_OUTCOMES) callbacks.inc({ kind, outcome }, 0);
for (const kind of PROCESS_KINDS) processesStarted.inc({ kind }, 0);

const platformCalls = counter('relayflow_platform_calls_total', 'Platform calls by area and outcome (ok, error, cancelled)', ['area', 'outcome']);

const platformCallErrors = counter('relayflow_platform_call_errors_total', 'Failed platform calls by area and error type', ['area', 'type']);

/** The platform clients' observer in the API (platform/call-observer.ts); the worker counts the same series its own way. */
export function countPlatformCall(call: PlatformCall): void {
  platformCalls.inc({ area: call.area, outcome: call.outcome });
  if (call.errorType) platformCallErrors.inc({ area: call.area, type: call.errorType });
}
