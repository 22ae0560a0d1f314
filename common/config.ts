// Configuration is read and validated once at start-up: one schema of every variable (common/config/schema.ts,
// checked by env-schema), then the rules a schema cannot say (common/config/*.ts). Every problem names its
// variable, and all of them are reported at once.
import type { ClientConnectConfig } from '@temporalio/envconfig';
import type { CodecKey } from './codec.js';
import { loadApi, type ApiConfig } from './config/api.js';
import { loadAuditSettings, type AuditSettings } from './config/audit.js';
import { loadCallbackSecrets } from './config/callbacks.js';
import { loadConsentSettings, type ConsentSettings } from './config/consent.js';
import { Problems, type Env } from './config/errors.js';
import { loadEventSettings, type EventSettings } from './config/events.js';
import { loadPlatformConfig, type LoadedPlatformConfig } from './config/platform.js';
import { loadProcessSettings, type ProcessSettings } from './config/processes.js';
import { loadRuntime, type TracingConfig, type WorkerMetricsConfig, type WorkerVersioningConfig } from './config/runtime.js';
import { CONFIG_SCHEMA } from './config/schema.js';
import { validateEnv } from './config/validate.js';
import { loadVerificationSettings } from './config/verification.js';

export { SANDBOX_CONVERSATION_WEBHOOK_SECRET, SANDBOX_PROVISIONING_WEBHOOK_SECRET } from './config/callbacks.js';
export { ConfigError, type Env } from './config/errors.js';
export {
  PLATFORM_AREAS,
  PLATFORM_DEFAULT_URLS,
  REGIONS,
  SANDBOX_CREDENTIALS,
  sandboxPlatformUrls,
  type PlatformArea,
  type PlatformConfig,
  type PlatformCredentials,
  type PlatformUrls,
  type Region,
} from './config/platform.js';
export type { VoiceSettings } from './config/processes.js';
export {
  DEFAULT_WORKER_CACHED_WORKFLOWS,
  DEFAULT_WORKER_WORKFLOW_TASK_SLOTS,
  loadWorkerMetricsConfig,
  type TracingConfig,
  type WorkerMetricsConfig,
  type WorkerVersioningConfig,
} from './config/runtime.js';
export { wholeNumber } from './config/validate.js';
export type { GeoSettings, PumpingSettings } from './config/verification.js';

export interface Config {
  dataDir: string;
  processes: ProcessSettings;
  logLevel: string;
  taskQueue: string;
  temporal: ClientConnectConfig;
  codecKeys: CodecKey[];
  api: ApiConfig;
  platform: LoadedPlatformConfig;
  database: { url?: string | undefined };
  /** Where a worker serves its metrics; undefined: not served (RELAYFLOW_WORKER_METRICS_PORT=off). */
  workerMetrics?: WorkerMetricsConfig | undefined;
  /** Workflows a worker keeps in its sticky cache (RELAYFLOW_WORKER_CACHED_WORKFLOWS); see DEFAULT_WORKER_CACHED_WORKFLOWS. */
  workerCachedWorkflows: number;
  /** Workflow tasks a worker runs at once (RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS); see DEFAULT_WORKER_WORKFLOW_TASK_SLOTS. */
  workerWorkflowTaskSlots: number;
  /** The worker's Worker Deployment version (RELAYFLOW_WORKER_VERSIONING); undefined: unversioned. */
  workerVersioning?: WorkerVersioningConfig | undefined;
  /** OpenTelemetry traces (common/tracing.ts); undefined or without a URL: off. */
  tracing?: TracingConfig | undefined;
  /** The words of a reply that opt its sender out of or back in to an app's messages. */
  consent: ConsentSettings;
  /** Event subscriptions' deliveries (workers/events/). */
  events: EventSettings;
  /** The audit archive (workers/audit/). */
  audit: AuditSettings;
}

export function loadConfig(env: Env = process.env): Config {
  const problems = new Problems();
  const checked = validateEnv(CONFIG_SCHEMA, env);
  problems.add(checked.problems);
  const v = checked.vars;
  const sandbox = v.PLATFORM_SANDBOX_URL !== undefined;
  const runtime = loadRuntime(v, env, problems);
  const { api, codecKeys } = loadApi(v, problems);
  const config: Config = {
    ...runtime,
    processes: { ...loadProcessSettings(v, sandbox, runtime.taskQueue), verification: loadVerificationSettings(v, problems) },
    codecKeys,
    api: { ...api, ...loadCallbackSecrets(v, sandbox, problems) },
    platform: loadPlatformConfig(v, problems),
    consent: loadConsentSettings(v, problems),
    events: loadEventSettings(v),
    audit: loadAuditSettings(v),
  };
  problems.throwIfAny(Object.keys(CONFIG_SCHEMA.properties));
  return config;
}

/** loadConfig for an entry point: a configuration error ends the process with one line per bad variable. */
export function loadConfigOrExit(program: string): Config {
  try {
    return loadConfig();
  } catch (err) {
    console.error(`relayflow ${program}: configuration error: ${(err as Error).message.replaceAll('\n', `\nrelayflow ${program}: configuration error: `)}`);
    process.exit(1);
  }
}
