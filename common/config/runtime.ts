// How relayflow's processes run: logs, the task queue, the store, the worker's metrics, cache and slots, traces,
// and the Temporal connection (Temporal's own variables, read by its envconfig).
import { loadClientConnectConfig, type ClientConnectConfig } from '@temporalio/envconfig';
import Type, { type Static } from 'typebox';
import { ConfigError, type Env, type Problems } from './errors.js';
import { oneOf, optionalHttpUrl, optionalText, text, whole } from './fields.js';
import { checkEnv } from './validate.js';

/** The worker's `/metrics` address (the Temporal SDK's Prometheus exporter binds it). */
export interface WorkerMetricsConfig {
  host: string;
  port: number;
  /** False when the port is the default: a worker that finds it taken warns and runs without metrics. */
  explicit: boolean;
}

export interface TracingConfig {
  /** The OTLP/HTTP (JSON) traces URL; undefined: tracing is off. */
  tracesUrl?: string | undefined;
}

interface DatabaseSettings {
  /** postgres://... for a deployment; unset: the embedded store under dataDir (one process only). */
  url?: string;
}

/**
 * The worker's sticky cache, bounded. On Node 20 every AsyncLocalStorage the SDK and the OpenTelemetry interceptor
 * create for a cached workflow (about four each) tags every promise made in the workflow thread, so each workflow
 * task costs time in proportion to the workflows held: with the SDK's default (thousands, from the heap size), the
 * idle per-number guards (one per number verified in the last hour) made verification 1.5x dearer within three
 * rounds of the benchmark. Beyond the bound the least recently used workflow is evicted and replayed when it next
 * runs (idle guards and waiting processes, rarely).
 */
export const DEFAULT_WORKER_CACHED_WORKFLOWS = 200;

/**
 * The SDK's default. A local activity (a verification's start) holds its workflow task's slot while it runs, so fewer
 * slots cost verification latency (4: start p50 +1.1 s in the benchmark). But all slots share one workflow thread: a
 * worker taking over many long histories at once (the other died) can stretch every replay past the 10 s workflow
 * task timeout, over and over (docs/cluster.md, the soak). 4 held there; 20 did not.
 */
export const DEFAULT_WORKER_WORKFLOW_TASK_SLOTS = 40;

const DEFAULT_WORKER_METRICS_PORT = 9464;

const WORKER_METRICS_VARIABLES = Type.Object({
  RELAYFLOW_WORKER_METRICS_PORT: Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.Literal('off')], {
    default: DEFAULT_WORKER_METRICS_PORT,
    description: "the worker's `/metrics` port (the Temporal SDK's Prometheus exporter); `off` turns it off",
    'x-rule': 'must be a port (1 to 65535) or "off"',
  }),
  RELAYFLOW_WORKER_METRICS_HOST: Type.String({
    default: '127.0.0.1',
    format: 'ip',
    description: 'the IP address it binds (`0.0.0.0` in `docker-compose.yml`; the exporter binds no names)',
  }),
});

export const RUNTIME_VARIABLES = Type.Object({
  RELAYFLOW_LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info', 'pino level'),
  RELAYFLOW_TASK_QUEUE: text('relayflow', "the workers' task queue"),
  RELAYFLOW_DATA_DIR: text('.relayflow', "development data: Temporal's SQLite file, dev keys"),
  RELAYFLOW_DATABASE_URL: optionalText(
    "`postgres://` URL of the store (campaign recipient lists, per-recipient outcomes, delivery reports; the verification guards: per-number admissions, rate-limit buckets, pumping guards, geo rules set through the API), shared by the API and every worker; without it the API answers the campaign routes, verification starts and the guards' routes with 503 naming this variable",
    {
      pattern: '^postgres(ql)?://',
      'x-rule': 'must be a postgres:// or postgresql:// URL',
      'x-default': 'none: `npm start` keeps an embedded store under `.relayflow/`',
      'x-secret': true,
    },
  ),
  ...WORKER_METRICS_VARIABLES.properties,
  RELAYFLOW_WORKER_CACHED_WORKFLOWS: whole(
    DEFAULT_WORKER_CACHED_WORKFLOWS,
    0,
    100_000,
    "workflows a worker keeps in its sticky cache (0: none); beyond it the least recently used is evicted and replayed when it next runs. Bounded because on Node 20 each cached workflow's AsyncLocalStorage instances (the SDK's and OpenTelemetry's) tag every promise of the workflow thread: every workflow task costs time in proportion to the workflows held ([processes/verification.md](processes/verification.md))",
  ),
  // The SDK refuses fewer than 2 while workflows are cached.
  RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS: whole(
    DEFAULT_WORKER_WORKFLOW_TASK_SLOTS,
    2,
    1_000,
    "workflow tasks a worker runs at once (the SDK's default). A verification's start (a local activity) holds its slot while it runs, so fewer cost latency (4: start p50 about 1.1 s slower in the benchmark); but every slot shares one workflow thread, so a worker that takes over many long histories at once (the other worker died, each a resource followed for hours) can stretch every replay past the 10 s workflow task timeout, over and over. The soak reproduced it: 4 held, 20 and 40 did not ([cluster.md](cluster.md#the-soak-npm-run-soak)). Lower it on workers that carry many long-lived processes",
  ),
  RELAYFLOW_WORKER_VERSIONING: oneOf(
    ['on', 'off'],
    'off',
    "`on`: the worker joins Temporal's Worker Deployment `RELAYFLOW_WORKER_DEPLOYMENT` as version `RELAYFLOW_WORKER_BUILD_ID`, so an upgrade keeps short-lived processes on the code that started them ([upgrades.md](upgrades.md)); `off`: unversioned (npm start, tests)",
  ),
  RELAYFLOW_WORKER_DEPLOYMENT: text('relayflow', "the Worker Deployment's name, the same for every worker of one relayflow"),
  RELAYFLOW_WORKER_BUILD_ID: optionalText("this worker's version in the deployment; two workers with the same workflow code share it", {
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    'x-rule': 'letters, digits, `.`, `_` or `-`, at most 64',
    'x-default': "the workflow bundle's content hash: any change to workflow code is a new version",
  }),
  RELAYFLOW_WORKER_PROMOTE: oneOf(
    ['on', 'off'],
    'on',
    "`on`: once polling, the worker makes its version the deployment's current one, so new processes start on it (a rolling upgrade); `off`: an operator promotes it (`temporal worker deployment set-current-version`)",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl(
    'turns traces on: spans are sent by OTLP over HTTP (JSON) to `<endpoint>/v1/traces` ([operations.md, Traces](operations.md#traces))',
    { 'x-default': 'none: no traces' },
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalHttpUrl('the traces URL as it is; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`', { 'x-default': 'none: no traces' }),
  OTEL_SDK_DISABLED: optionalText('`true` turns traces off again'),
  OTEL_TRACES_EXPORTER: optionalText('comma-separated exporters; without `otlp` (e.g. `none`) traces are off'),
});
type RuntimeVars = Static<typeof RUNTIME_VARIABLES>;

/** The worker's metrics address from checked variables; undefined: RELAYFLOW_WORKER_METRICS_PORT=off. */
function workerMetricsOf(v: Static<typeof WORKER_METRICS_VARIABLES>, explicit: boolean): WorkerMetricsConfig | undefined {
  const port = v.RELAYFLOW_WORKER_METRICS_PORT;
  return port === 'off' ? undefined : { host: v.RELAYFLOW_WORKER_METRICS_HOST, port, explicit };
}

const portSet = (env: Env) => Boolean(env.RELAYFLOW_WORKER_METRICS_PORT?.trim());

/** RELAYFLOW_WORKER_METRICS_PORT and _HOST alone (npm start reads them before the rest). */
export function loadWorkerMetricsConfig(env: Env): WorkerMetricsConfig | undefined {
  return workerMetricsOf(checkEnv(WORKER_METRICS_VARIABLES, env), portSet(env));
}

/**
 * OpenTelemetry's standard variables: the traces endpoint as it is, or the base endpoint with /v1/traces added.
 * Neither set, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER without otlp: off.
 */
function tracingOf(v: RuntimeVars): TracingConfig {
  if (v.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return {};
  const exporters = v.OTEL_TRACES_EXPORTER?.toLowerCase();
  if (exporters && !exporters.split(',').some((e) => e.trim() === 'otlp')) return {};
  if (v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return { tracesUrl: v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.replace(/\/+$/, '') };
  if (v.OTEL_EXPORTER_OTLP_ENDPOINT) return { tracesUrl: `${v.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` };
  return {};
}

/** The worker's place in a Worker Deployment; undefined: unversioned. */
export interface WorkerVersioningConfig {
  deployment: string;
  /** Undefined: the workflow bundle's content hash. */
  buildId?: string | undefined;
  promote: boolean;
}

function versioningOf(v: RuntimeVars): WorkerVersioningConfig | undefined {
  if (v.RELAYFLOW_WORKER_VERSIONING === 'off') return undefined;
  return { deployment: v.RELAYFLOW_WORKER_DEPLOYMENT, buildId: v.RELAYFLOW_WORKER_BUILD_ID, promote: v.RELAYFLOW_WORKER_PROMOTE === 'on' };
}

/** Temporal's standard variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS...) and profile files. */
function temporalOf(env: Env): ClientConnectConfig {
  try {
    return loadClientConnectConfig({ overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)) });
  } catch (err) {
    throw new ConfigError('TEMPORAL_*', `Temporal connection settings are invalid: ${(err as Error).message}`);
  }
}

export function loadRuntime(v: RuntimeVars, env: Env, problems: Problems) {
  return {
    logLevel: v.RELAYFLOW_LOG_LEVEL,
    taskQueue: v.RELAYFLOW_TASK_QUEUE,
    dataDir: v.RELAYFLOW_DATA_DIR,
    database: { url: v.RELAYFLOW_DATABASE_URL } satisfies DatabaseSettings,
    temporal: problems.check([], () => temporalOf(env), { connectionOptions: {} } as ClientConnectConfig),
    workerMetrics: workerMetricsOf(v, portSet(env)),
    workerCachedWorkflows: v.RELAYFLOW_WORKER_CACHED_WORKFLOWS,
    workerWorkflowTaskSlots: v.RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS,
    workerVersioning: versioningOf(v),
    tracing: tracingOf(v),
  };
}
