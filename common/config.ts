// Configuration is read and validated once at start-up; every problem names its variable.
import { isIP } from 'node:net';
import { loadClientConnectConfig, type ClientConnectConfig } from '@temporalio/envconfig';
import { parseCodecKeys, type CodecKey } from './codec.js';
import type { PreviousSecret } from './secret-rotation.js';
import { ApiKeysError, loadApiKeys, MIN_KEY_LENGTH, type ApiKeyEntry } from './api-keys.js';
import { GEO_ACTIONS, parseGeoRules, type GeoAction, type GeoRule } from './verification-geo.js';
import { parseRateLimits, type RateLimit } from './verification-limits.js';
import { VERIFICATION_METHODS, type VerificationMethod } from './wire/verification.js';

export type Region = 'us' | 'eu' | 'br';
export const REGIONS: readonly Region[] = ['us', 'eu', 'br'];

export interface PlatformUrls {
  auth: string;
  subprojects: string;
  verification: string;
  voice: string;
  voiceConfig: string;
  mms: string;
  senderid: string;
  provisioning: string;
  conversation: Record<Region, string>;
  template: Record<Region, string>;
  batch: Record<Region, string>;
}

export interface PlatformCredentials {
  projectId: string;
  keyId: string;
  keySecret: string;
  appKey: string;
  /** base64, as the platform's dashboard shows it */
  appSecret: string;
  mmsApiKey: string;
}

/** The platform's interface areas a deployment can enable (RELAYFLOW_AREAS). */
export const PLATFORM_AREAS = ['subprojects', 'verification', 'provisioning', 'voice', 'mms', 'conversation', 'senderid'] as const;
export type PlatformArea = (typeof PLATFORM_AREAS)[number];
/** The areas relayflow's processes use today; others are opt-in so their credentials are not demanded. */
const DEFAULT_PLATFORM_AREAS: readonly PlatformArea[] = ['subprojects', 'verification', 'provisioning'];

export interface PlatformConfig {
  mode: 'sandbox' | 'platform';
  /** The sandbox's base URL (PLATFORM_SANDBOX_URL), in sandbox mode. */
  sandboxUrl?: string;
  urls: PlatformUrls;
  /** Credentials of areas that are not enabled may be empty strings. */
  credentials: PlatformCredentials;
  requestTimeoutMs: number;
  /** Enabled areas, in PLATFORM_AREAS order. Always set by loadPlatformConfig; absent (a config built by hand) means all. */
  areas?: readonly PlatformArea[];
}

interface LoadedPlatformConfig extends PlatformConfig {
  areas: readonly PlatformArea[];
}

interface ApiConfig {
  host: string;
  port: number;
  /** RELAYFLOW_API_KEYS: plain keys, admin scope. */
  apiKeys: string[];
  /** RELAYFLOW_API_KEYS_FILE: scoped keys, re-read on SIGHUP (api/key-reload.ts). */
  apiKeysFile?: string;
  /** Every key with its scope as read at start-up: apiKeys as admin, then the file's (common/api-keys.ts). */
  keys: ApiKeyEntry[];
  /** Requests per minute per API key, and per client address for requests without a valid key. */
  rateLimitPerMinute: number;
  /** Base URL the platform uses to reach relayflow's callback routes. */
  publicUrl: string;
  /** True when RELAYFLOW_PUBLIC_URL was set: only then is publicUrl one the platform can reach (workers register callbacks). */
  publicUrlExplicit?: boolean;
  /** Origins (the Temporal web UI) allowed to call the codec endpoint from a browser. */
  codecCorsOrigins: string[];
  /** API key IDs (api/plugins/actor.ts keyIdOf) allowed to read timelines with phone numbers unmasked (`?unmasked=true`). */
  auditUnmaskKeyIds?: string[];
  /** The secret the platform signs provisioning webhooks with; unset: the intake refuses every delivery. */
  provisioningWebhookSecret: string | undefined;
  /**
   * During a rotation, the secret the platform signed with before, accepted until its end
   * (RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET and _UNTIL); workers give the platform the current one meanwhile.
   */
  provisioningWebhookPreviousSecret: PreviousSecret | undefined;
  /** The sender ID callback secrets relayflow accepts, current first (rotation: the previous one second). */
  senderIdCallbackSecrets: string[];
  /** The secret of relayflow's conversation delivery webhooks; unset: the intake refuses every delivery. */
  conversationWebhookSecret: string | undefined;
  /** The secret path segment of the MMS postback URL (`/callbacks/mms/<token>`): MMS postbacks are not signed. */
  mmsPostbackToken: string | undefined;
}

interface VerificationSettings {
  /** Default time per fallback step, by method. */
  stepTimeoutMs: Record<'sms' | 'flashcall' | 'callout' | 'seamless' | 'whatsapp', number>;
  codeExpiryMs: number;
  maxReportAttempts: number;
  resendCooldownMs: number;
  maxResends: number;
  /** At most guardMax verifications started per number per guardWindowMs, across all processes. */
  guardMax: number;
  guardWindowMs: number;
  /** Geo permissions (common/verification-geo.ts): the configured rules and default, under those set through the API. */
  geo: GeoSettings;
  /** Limits by the caller's keys, by country and by prefix (common/verification-limits.ts): RELAYFLOW_VERIFICATION_RATE_LIMITS. */
  rateLimits: RateLimit[];
  /** The SMS-pumping guard (common/verification-pumping.ts). */
  pumping: PumpingSettings;
}

export interface PumpingSettings {
  enabled: boolean;
  /** A number is judged under its first this many digits (country code included). */
  prefixDigits: number;
  windowMs: number;
  minStarts: number;
  /** 0-1: below this share of starts reported correctly, with minStarts in the window, the prefix is blocked. */
  floor: number;
  /** block: refuse (429 pumping_suspected); a method: start with that method alone instead. */
  action: 'block' | VerificationMethod;
  /** How long an API instance keeps a prefix's guard state it read. */
  cacheMs: number;
}

export interface GeoSettings {
  rules: GeoRule[];
  defaultAction: GeoAction;
  /** How long an API instance keeps the rules it read: a change through the API reaches every instance within it. */
  cacheMs: number;
}

interface ProvisioningSettings {
  /** Read the resource when no webhook has arrived for this long. */
  pollIntervalMs: number;
  /** Report a decision overdue after this long under review (the process keeps waiting). */
  overdueAfterMs: number;
  /** A resource inbox with nothing attached ends after receiving nothing for this long (a later event starts a new one). */
  inboxIdleMs: number;
}

interface ProcessSettings {
  /** usableAfterMs: how long after creation a subproject is taken to be usable with its parent (spec part E: up to 30 s). */
  subproject: { usableAfterMs: number };
  verification: VerificationSettings;
  provisioning: ProvisioningSettings;
  senderid: SenderIdSettings;
  campaigns: CampaignSettings;
  voice: VoiceSettings;
}

export interface VoiceSettings {
  /** How long a callback's intake waits for the call's process to answer; past it the spec's fallback is answered. */
  answerDeadlineMs: number;
  /** Read a call from the platform when no callback has come for this long. */
  checkEveryMs: number;
  /** How long a callout whose answer was lost waits for a callback naming its call before it counts as not placed. */
  inDoubtWaitMs: number;
}

interface CampaignSettings {
  /** The task queue of the send activities; its workers cap chunk starts across all workers (Temporal's task-queue rate limit). */
  sendTaskQueue: string;
  /**
   * The campaigns' other activities (prepare, rate, halt, settle): `<sendTaskQueue>-control`, served by the same
   * workers but not rate-limited, so a pause never waits behind chunk starts.
   */
  controlTaskQueue: string;
  /** Recipients per send activity (chunk) at least: fewer actions per message, more work redone by nobody (progress is in the store). */
  chunkSize: number;
  /**
   * A fast campaign's chunk holds this many seconds of sending (more rows than chunkSize): between two chunks a
   * window slot idles for a workflow task and an activity dispatch, which long chunks make rare. 0: chunkSize only.
   */
  chunkSeconds: number;
  /** The platform's per-project request budget (conversation: 800/s), shared by every campaign through the task-queue rate limit. */
  projectRequestsPerSecond: number;
  /** The MMS account's throughput limit per second, set at onboarding (E113 beyond it). */
  mmsThroughputPerSecond: number;
  /** A send activity that stops heartbeating for this long is retried elsewhere (a killed worker). */
  heartbeatTimeoutMs: number;
  /** How long an MMS whose answer was lost may wait for a postback to confirm it before it is reported unconfirmed. */
  inDoubtWaitMs: number;
}

interface DatabaseSettings {
  /** postgres://... for a deployment; unset: the embedded store under dataDir (one process only). */
  url?: string;
}

interface SenderIdSettings {
  /** Read the registration when no callback has arrived for this long. */
  pollIntervalMs: number;
  /** Report a registration overdue this long after the platform's etaDate (it keeps waiting). */
  overdueGraceMs: number;
}

export interface Config {
  dataDir: string;
  processes: ProcessSettings;
  logLevel: string;
  taskQueue: string;
  temporal: ClientConnectConfig;
  codecKeys: CodecKey[];
  api: ApiConfig;
  platform: LoadedPlatformConfig;
  database: DatabaseSettings;
  /** Where a worker serves its metrics; undefined: not served (RELAYFLOW_WORKER_METRICS_PORT=off). */
  workerMetrics?: WorkerMetricsConfig | undefined;
  /** Workflows a worker keeps in its sticky cache (RELAYFLOW_WORKER_CACHED_WORKFLOWS); see DEFAULT_WORKER_CACHED_WORKFLOWS. */
  workerCachedWorkflows: number;
  /** Workflow tasks a worker runs at once (RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS); see DEFAULT_WORKER_WORKFLOW_TASK_SLOTS. */
  workerWorkflowTaskSlots: number;
  /** OpenTelemetry traces (common/tracing.ts); undefined or without a URL: off. */
  tracing?: TracingConfig | undefined;
}

export interface TracingConfig {
  /** The OTLP/HTTP (JSON) traces URL; undefined: tracing is off. */
  tracesUrl?: string | undefined;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    rule: string,
  ) {
    super(`${variable}: ${rule}`);
    this.name = 'ConfigError';
  }
}

export type Env = Record<string, string | undefined>;

/** Paths under which the sandbox mounts each area; one table so sandbox and config agree. */
export function sandboxPlatformUrls(baseUrl: string): PlatformUrls {
  const base = baseUrl.replace(/\/+$/, '');
  const regional = (area: string) => Object.fromEntries(REGIONS.map((r) => [r, `${base}/${area}/${r}`])) as Record<Region, string>;
  return {
    auth: `${base}/auth`,
    subprojects: `${base}/subprojects`,
    verification: `${base}/verification`,
    voice: `${base}/voice`,
    voiceConfig: `${base}/voice-config`,
    mms: `${base}/mms`,
    senderid: `${base}/senderid`,
    provisioning: `${base}/provisioning`,
    conversation: regional('conversation'),
    template: regional('template'),
    batch: regional('batch'),
  };
}

/** The sandbox's well-known development account; real credentials never default. */
export const SANDBOX_CREDENTIALS: PlatformCredentials = {
  projectId: 'sandbox-project',
  keyId: 'sandbox-key-id',
  keySecret: 'sandbox-key-secret',
  appKey: 'sandbox-app-key',
  appSecret: Buffer.from('sandbox-application-secret-32by').toString('base64'),
  mmsApiKey: 'sandbox-mms-api-key',
};

function str(env: Env, name: string, fallback?: string): string {
  const v = env[name]?.trim();
  if (v) return v;
  if (fallback !== undefined) return fallback;
  throw new ConfigError(name, 'is required');
}

/** A whole number between min and max, or undefined when the variable is unset (the standalone sandbox reads its own this way). */
export function wholeNumber(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

const int = (env: Env, name: string, fallback: number, min: number, max: number): number => wholeNumber(env, name, min, max) ?? fallback;

function url(env: Env, name: string, fallback?: string): string {
  const v = str(env, name, fallback);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${v}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `must use http or https (got "${parsed.protocol}")`);
  }
  return v.replace(/\/+$/, '');
}

/** The sandbox signs with a well-known development secret; for the real platform it must be set. */
const SANDBOX_SENDERID_CALLBACK_SECRET = 'sandbox-senderid-callback-secret';

/**
 * RELAYFLOW_SENDERID_CALLBACK_SECRETS (comma-separated, current first) or RELAYFLOW_SENDERID_CALLBACK_SECRET
 * (one); against the sandbox a fixed dev secret by default; none: the intake refuses every callback.
 */
function senderIdCallbackSecrets(env: Env): string[] {
  const many = env.RELAYFLOW_SENDERID_CALLBACK_SECRETS?.trim();
  const one = env.RELAYFLOW_SENDERID_CALLBACK_SECRET?.trim();
  const name = many ? 'RELAYFLOW_SENDERID_CALLBACK_SECRETS' : 'RELAYFLOW_SENDERID_CALLBACK_SECRET';
  const secrets = many ? many.split(',').map((x) => x.trim()) : one ? [one] : env.PLATFORM_SANDBOX_URL?.trim() ? [SANDBOX_SENDERID_CALLBACK_SECRET] : [];
  for (const s of secrets) if (s.length < 1 || s.length > 256) throw new ConfigError(name, 'each secret must have 1..256 characters');
  return secrets;
}

export const SANDBOX_PROVISIONING_WEBHOOK_SECRET = 'sandbox-provisioning-webhook-secret';

function webhookSecret(env: Env): string | undefined {
  const name = 'RELAYFLOW_PROVISIONING_WEBHOOK_SECRET';
  const v = env[name]?.trim() || (env.PLATFORM_SANDBOX_URL?.trim() ? SANDBOX_PROVISIONING_WEBHOOK_SECRET : undefined);
  if (v !== undefined && (v.length < 8 || v.length > 256)) throw new ConfigError(name, 'must be 8 to 256 characters (the platform requires at least 8)');
  return v;
}

/** The longest a previous provisioning webhook secret may stay accepted, counted from the start of the process. */
const MAX_PREVIOUS_SECRET_WINDOW_MS = 30 * 86_400_000;

/**
 * RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET with RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL (an ISO 8601
 * time, required with it: a fixed end, the same for every replica and restart, so a rotation always ends).
 */
function previousWebhookSecret(env: Env, now = Date.now()): PreviousSecret | undefined {
  const name = 'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET';
  const untilName = `${name}_UNTIL`;
  const secret = env[name]?.trim();
  const until = env[untilName]?.trim();
  if (!secret) {
    if (until) throw new ConfigError(untilName, `is set without ${name}`);
    return undefined;
  }
  if (secret.length < 8 || secret.length > 256) throw new ConfigError(name, 'must be 8 to 256 characters (the platform requires at least 8)');
  if (!until) throw new ConfigError(untilName, `is required with ${name}: the time (ISO 8601) until which the previous secret is accepted`);
  const untilMs = /^\d{4}-\d{2}-\d{2}T/.test(until) ? Date.parse(until) : NaN;
  if (Number.isNaN(untilMs)) throw new ConfigError(untilName, `must be an ISO 8601 date and time, e.g. 2026-05-01T12:00:00Z (got "${until}")`);
  if (untilMs - now > MAX_PREVIOUS_SECRET_WINDOW_MS) throw new ConfigError(untilName, 'must be at most 30 days ahead');
  return { secret, untilMs };
}

const sendTaskQueueOf = (env: Env) => str(env, 'RELAYFLOW_SEND_TASK_QUEUE', `${str(env, 'RELAYFLOW_TASK_QUEUE', 'relayflow')}-sends`);

export const SANDBOX_CONVERSATION_WEBHOOK_SECRET = 'sandbox-conversation-webhook-secret';
const SANDBOX_MMS_POSTBACK_TOKEN = 'sandbox-mms-postback-token';

/** A secret with a fixed development value in sandbox mode and none otherwise (the intake then refuses everything). */
function sandboxDefaulted(env: Env, name: string, sandboxValue: string, min: number): string | undefined {
  const v = env[name]?.trim() || (env.PLATFORM_SANDBOX_URL?.trim() ? sandboxValue : undefined);
  if (v !== undefined && (v.length < min || v.length > 256)) throw new ConfigError(name, `must be ${min} to 256 characters`);
  if (v !== undefined && name === 'RELAYFLOW_MMS_POSTBACK_TOKEN' && !/^[A-Za-z0-9_-]+$/.test(v))
    throw new ConfigError(name, 'must be URL-safe: letters, digits, - and _');
  return v;
}

function databaseUrl(env: Env): string | undefined {
  const v = env.RELAYFLOW_DATABASE_URL?.trim();
  if (!v) return undefined;
  if (!/^postgres(ql)?:\/\//.test(v)) throw new ConfigError('RELAYFLOW_DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  return v;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function apiKeys(env: Env): string[] {
  const keys = list(env, 'RELAYFLOW_API_KEYS');
  // With a keys file the environment may give none: the file then holds every key.
  if (keys.length === 0 && !env.RELAYFLOW_API_KEYS_FILE?.trim())
    throw new ConfigError('RELAYFLOW_API_KEYS', 'is required (comma-separated API keys) unless RELAYFLOW_API_KEYS_FILE lists keys');
  for (const [i, k] of keys.entries()) {
    if (k.length < MIN_KEY_LENGTH) throw new ConfigError('RELAYFLOW_API_KEYS', `key #${i + 1} must be at least ${MIN_KEY_LENGTH} characters`);
  }
  return keys;
}

function scopedKeys(envKeys: string[], file: string | undefined): ApiKeyEntry[] {
  try {
    return loadApiKeys({ envKeys, file });
  } catch (err) {
    if (err instanceof ApiKeysError) throw new ConfigError(err.variable, err.message);
    throw err;
  }
}

/**
 * The platform's public production addresses. Origins only, as for the sandbox: each client appends its
 * own versioned path (/verification/v1, /v1alpha1, /v1, /calling/v1, /oauth2/token), except MMS, whose
 * JSON interface is one endpoint that includes /ep/v2. Sources: the platform's API reference pages and its
 * official SDKs' default hosts (the table in docs/configuration.md).
 */
export const PLATFORM_DEFAULT_URLS: PlatformUrls = {
  auth: 'https://auth.sinch.com',
  subprojects: 'https://subproject.api.sinch.com',
  verification: 'https://verification.api.sinch.com',
  // Global voice address; the platform redirects it to the closest region (regional ones: calling-use1, -euc1, ...).
  voice: 'https://calling.api.sinch.com',
  // Application and number configuration is global and lives on its own host.
  voiceConfig: 'https://callingapi.sinch.com',
  mms: 'https://api.ci.mblox.com/ep/v2',
  senderid: 'https://senderid.registrations.api.sinch.com',
  provisioning: 'https://provisioning.api.sinch.com',
  conversation: { us: 'https://us.conversation.api.sinch.com', eu: 'https://eu.conversation.api.sinch.com', br: 'https://br.conversation.api.sinch.com' },
  template: { us: 'https://us.template.api.sinch.com', eu: 'https://eu.template.api.sinch.com', br: 'https://br.template.api.sinch.com' },
  batch: {
    us: 'https://us.conversationbatch.api.sinch.com',
    eu: 'https://eu.conversationbatch.api.sinch.com',
    br: 'https://br.conversationbatch.api.sinch.com',
  },
};

/** Every address has its public default; a variable overrides it (a proxy, a staging host) and is validated. */
function platformUrls(env: Env): PlatformUrls {
  const d = PLATFORM_DEFAULT_URLS;
  const regional = (area: string, defaults: Record<Region, string>) =>
    Object.fromEntries(REGIONS.map((r) => [r, url(env, `PLATFORM_${area}_URL_${r.toUpperCase()}`, defaults[r])])) as Record<Region, string>;
  return {
    auth: url(env, 'PLATFORM_AUTH_URL', d.auth),
    subprojects: url(env, 'PLATFORM_SUBPROJECTS_URL', d.subprojects),
    verification: url(env, 'PLATFORM_VERIFICATION_URL', d.verification),
    voice: url(env, 'PLATFORM_VOICE_URL', d.voice),
    voiceConfig: url(env, 'PLATFORM_VOICE_CONFIG_URL', d.voiceConfig),
    mms: url(env, 'PLATFORM_MMS_URL', d.mms),
    senderid: url(env, 'PLATFORM_SENDERID_URL', d.senderid),
    provisioning: url(env, 'PLATFORM_PROVISIONING_URL', d.provisioning),
    conversation: regional('CONVERSATION', d.conversation),
    template: regional('TEMPLATE', d.template),
    batch: regional('BATCH', d.batch),
  };
}

/** RELAYFLOW_AREAS, comma-separated; unset or blank: `fallback`. */
function platformAreas(env: Env, fallback: readonly PlatformArea[]): readonly PlatformArea[] {
  const name = 'RELAYFLOW_AREAS';
  const given = list(env, name).map((a) => a.toLowerCase());
  if (given.length === 0) return [...fallback];
  const unknown = given.filter((a) => !(PLATFORM_AREAS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new ConfigError(
      name,
      `unknown area${unknown.length > 1 ? 's' : ''} ${unknown.map((a) => `"${a}"`).join(', ')} (valid: ${PLATFORM_AREAS.join(', ')})`,
    );
  }
  return PLATFORM_AREAS.filter((a) => given.includes(a));
}

const OAUTH_AREAS: readonly PlatformArea[] = ['subprojects', 'provisioning', 'conversation', 'senderid'];
const APPLICATION_AREAS: readonly PlatformArea[] = ['verification', 'voice'];

/** Which areas need each credential: the OAuth key, the application key (signed requests), the MMS key. */
const CREDENTIAL_NEEDS: Record<keyof PlatformCredentials, { variable: string; areas: readonly PlatformArea[] }> = {
  projectId: { variable: 'PLATFORM_PROJECT_ID', areas: OAUTH_AREAS },
  keyId: { variable: 'PLATFORM_KEY_ID', areas: OAUTH_AREAS },
  keySecret: { variable: 'PLATFORM_KEY_SECRET', areas: OAUTH_AREAS },
  appKey: { variable: 'PLATFORM_APP_KEY', areas: APPLICATION_AREAS },
  appSecret: { variable: 'PLATFORM_APP_SECRET', areas: APPLICATION_AREAS },
  mmsApiKey: { variable: 'PLATFORM_MMS_API_KEY', areas: ['mms'] },
};

/** A credential no enabled area needs may be absent (empty string); one that is set is validated all the same. */
function platformCredential(env: Env, key: keyof PlatformCredentials, areas: readonly PlatformArea[]): string {
  const { variable, areas: needers } = CREDENTIAL_NEEDS[key];
  const value = env[variable]?.trim() ?? '';
  if (!value) {
    const needing = areas.filter((a) => needers.includes(a));
    if (needing.length > 0) {
      const names = needing.length === 1 ? needing[0] : `${needing.slice(0, -1).join(', ')} and ${needing.at(-1)}`;
      throw new ConfigError(variable, `is required when the ${names} area${needing.length > 1 ? 's are' : ' is'} enabled (RELAYFLOW_AREAS)`);
    }
    return '';
  }
  return key === 'appSecret' ? appSecret(env) : value;
}

function appSecret(env: Env, fallback?: string): string {
  const v = str(env, 'PLATFORM_APP_SECRET', fallback);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || Buffer.from(v, 'base64').length < 16) {
    throw new ConfigError('PLATFORM_APP_SECRET', 'must be the base64 application secret (at least 16 bytes)');
  }
  return v;
}

/**
 * Sandbox mode when PLATFORM_SANDBOX_URL is set: every area by default, the sandbox's account. Otherwise the
 * real platform: public default addresses, and the credentials that the enabled areas need.
 */
function loadPlatformConfig(env: Env): LoadedPlatformConfig {
  const requestTimeoutMs = int(env, 'PLATFORM_REQUEST_TIMEOUT_MS', 10_000, 100, 120_000);
  if (env.PLATFORM_SANDBOX_URL?.trim()) {
    const d = SANDBOX_CREDENTIALS;
    return {
      mode: 'sandbox',
      sandboxUrl: url(env, 'PLATFORM_SANDBOX_URL'),
      urls: sandboxPlatformUrls(url(env, 'PLATFORM_SANDBOX_URL')),
      credentials: {
        projectId: str(env, 'PLATFORM_PROJECT_ID', d.projectId),
        keyId: str(env, 'PLATFORM_KEY_ID', d.keyId),
        keySecret: str(env, 'PLATFORM_KEY_SECRET', d.keySecret),
        appKey: str(env, 'PLATFORM_APP_KEY', d.appKey),
        appSecret: appSecret(env, d.appSecret),
        mmsApiKey: str(env, 'PLATFORM_MMS_API_KEY', d.mmsApiKey),
      },
      requestTimeoutMs,
      areas: platformAreas(env, PLATFORM_AREAS),
    };
  }
  const areas = platformAreas(env, DEFAULT_PLATFORM_AREAS);
  const credential = (key: keyof PlatformCredentials) => platformCredential(env, key, areas);
  return {
    mode: 'platform',
    urls: platformUrls(env),
    credentials: {
      projectId: credential('projectId'),
      keyId: credential('keyId'),
      keySecret: credential('keySecret'),
      appKey: credential('appKey'),
      appSecret: credential('appSecret'),
      mmsApiKey: credential('mmsApiKey'),
    },
    requestTimeoutMs,
    areas,
  };
}

/** The worker's `/metrics` address (the Temporal SDK's Prometheus exporter binds it). */
export interface WorkerMetricsConfig {
  host: string;
  port: number;
  /** False when the port is the default: a worker that finds it taken warns and runs without metrics. */
  explicit: boolean;
}

const DEFAULT_WORKER_METRICS_PORT = 9464;

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

/** RELAYFLOW_WORKER_METRICS_PORT (1-65535, or `off`) and RELAYFLOW_WORKER_METRICS_HOST (an IP address: the exporter binds no names). */
export function loadWorkerMetricsConfig(env: Env): WorkerMetricsConfig | undefined {
  const name = 'RELAYFLOW_WORKER_METRICS_PORT';
  const raw = env[name]?.trim();
  if (raw?.toLowerCase() === 'off') return undefined;
  const port = raw ? Number(raw) : DEFAULT_WORKER_METRICS_PORT;
  if (raw && (!/^\d+$/.test(raw) || port < 1 || port > 65535)) throw new ConfigError(name, `must be a port (1 to 65535) or "off" (got "${raw}")`);
  const host = str(env, 'RELAYFLOW_WORKER_METRICS_HOST', '127.0.0.1');
  if (!isIP(host)) throw new ConfigError('RELAYFLOW_WORKER_METRICS_HOST', `must be an IP address such as 127.0.0.1 or 0.0.0.0 (got "${host}")`);
  return { host, port, explicit: Boolean(raw) };
}

/**
 * OpenTelemetry's standard variables: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the traces URL, as is) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (a base URL: /v1/traces is added). Neither set, OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none: off.
 */
function loadTracingConfig(env: Env): TracingConfig {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return {};
  const exporters = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (
    exporters &&
    !exporters
      .split(',')
      .map((e) => e.trim())
      .includes('otlp')
  )
    return {};
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()) return { tracesUrl: url(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') };
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) return { tracesUrl: `${url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT')}/v1/traces` };
  return {};
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function loadTemporalConfig(env: Env): ClientConnectConfig {
  try {
    // Temporal's standard variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TLS...) and profile files.
    return loadClientConnectConfig({ overrideEnvVars: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)) });
  } catch (err) {
    throw new ConfigError('TEMPORAL_*', `Temporal connection settings are invalid: ${(err as Error).message}`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = str(env, 'RELAYFLOW_LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('RELAYFLOW_LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const host = str(env, 'RELAYFLOW_API_HOST', '127.0.0.1');
  const port = int(env, 'RELAYFLOW_API_PORT', 3000, 0, 65535);
  return {
    dataDir: str(env, 'RELAYFLOW_DATA_DIR', '.relayflow'),
    processes: {
      subproject: {
        // The spec's 30 s; against the sandbox its default wait (SANDBOX_SUBPROJECT_READY_MS, 5 s).
        usableAfterMs: int(env, 'RELAYFLOW_SUBPROJECT_USABLE_AFTER_MS', env.PLATFORM_SANDBOX_URL?.trim() ? 5_000 : 30_000, 0, 600_000),
      },
      verification: {
        stepTimeoutMs: {
          sms: int(env, 'RELAYFLOW_VERIFICATION_SMS_TIMEOUT_MS', 300_000, 1_000, 86_400_000),
          flashcall: int(env, 'RELAYFLOW_VERIFICATION_FLASHCALL_TIMEOUT_MS', 60_000, 1_000, 86_400_000),
          callout: int(env, 'RELAYFLOW_VERIFICATION_CALLOUT_TIMEOUT_MS', 120_000, 1_000, 86_400_000),
          seamless: int(env, 'RELAYFLOW_VERIFICATION_SEAMLESS_TIMEOUT_MS', 60_000, 1_000, 86_400_000),
          whatsapp: int(env, 'RELAYFLOW_VERIFICATION_WHATSAPP_TIMEOUT_MS', 300_000, 1_000, 86_400_000),
        },
        codeExpiryMs: int(env, 'RELAYFLOW_VERIFICATION_CODE_EXPIRY_MS', 600_000, 1_000, 86_400_000),
        maxReportAttempts: int(env, 'RELAYFLOW_VERIFICATION_MAX_ATTEMPTS', 3, 1, 100),
        resendCooldownMs: int(env, 'RELAYFLOW_VERIFICATION_RESEND_COOLDOWN_MS', 30_000, 0, 86_400_000),
        maxResends: int(env, 'RELAYFLOW_VERIFICATION_MAX_RESENDS', 3, 0, 100),
        guardMax: int(env, 'RELAYFLOW_VERIFICATION_GUARD_MAX', 5, 1, 1_000_000),
        guardWindowMs: int(env, 'RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS', 3_600_000, 1_000, 30 * 86_400_000),
        geo: geoSettings(env),
        rateLimits: rateLimitSettings(env),
        pumping: pumpingSettings(env),
      },
      provisioning: {
        pollIntervalMs: int(env, 'RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS', 300_000, 100, 86_400_000),
        overdueAfterMs: int(env, 'RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS', 7 * 86_400_000, 100, 365 * 86_400_000),
        inboxIdleMs: int(env, 'RELAYFLOW_INBOX_IDLE_MS', 30 * 86_400_000, 1_000, 365 * 86_400_000),
      },
      senderid: {
        pollIntervalMs: int(env, 'RELAYFLOW_SENDERID_POLL_INTERVAL_MS', 3_600_000, 100, 7 * 86_400_000),
        overdueGraceMs: int(env, 'RELAYFLOW_SENDERID_OVERDUE_GRACE_MS', 0, 0, 365 * 86_400_000),
      },
      campaigns: {
        sendTaskQueue: sendTaskQueueOf(env),
        controlTaskQueue: `${sendTaskQueueOf(env)}-control`,
        chunkSize: int(env, 'RELAYFLOW_CAMPAIGN_CHUNK_SIZE', 200, 10, 5_000),
        chunkSeconds: int(env, 'RELAYFLOW_CAMPAIGN_CHUNK_SECONDS', 20, 0, 600),
        projectRequestsPerSecond: int(env, 'RELAYFLOW_PROJECT_REQUESTS_PER_SECOND', 800, 1, 100_000),
        mmsThroughputPerSecond: int(env, 'RELAYFLOW_MMS_THROUGHPUT_PER_SECOND', 50, 1, 100_000),
        heartbeatTimeoutMs: int(env, 'RELAYFLOW_CAMPAIGN_HEARTBEAT_TIMEOUT_MS', 20_000, 1_000, 600_000),
        inDoubtWaitMs: int(env, 'RELAYFLOW_CAMPAIGN_IN_DOUBT_WAIT_MS', 1_800_000, 0, 7 * 86_400_000),
      },
      voice: {
        // Under the platform's callback timeout (a few seconds; the sandbox's is 3 s), with room for the network.
        answerDeadlineMs: int(env, 'RELAYFLOW_VOICE_ANSWER_DEADLINE_MS', 2_000, 100, 10_000),
        checkEveryMs: int(env, 'RELAYFLOW_VOICE_CHECK_EVERY_MS', 30_000, 100, 3_600_000),
        inDoubtWaitMs: int(env, 'RELAYFLOW_VOICE_IN_DOUBT_WAIT_MS', 60_000, 100, 3_600_000),
      },
    },
    logLevel,
    taskQueue: str(env, 'RELAYFLOW_TASK_QUEUE', 'relayflow'),
    temporal: loadTemporalConfig(env),
    codecKeys: parseCodecKeys(str(env, 'RELAYFLOW_CODEC_KEYS'), 'RELAYFLOW_CODEC_KEYS'),
    api: {
      host,
      port,
      apiKeys: apiKeys(env),
      apiKeysFile: env.RELAYFLOW_API_KEYS_FILE?.trim() || undefined,
      keys: scopedKeys(apiKeys(env), env.RELAYFLOW_API_KEYS_FILE?.trim() || undefined),
      rateLimitPerMinute: int(env, 'RELAYFLOW_RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
      publicUrlExplicit: Boolean(env.RELAYFLOW_PUBLIC_URL?.trim()),
      publicUrl: url(env, 'RELAYFLOW_PUBLIC_URL', `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`),
      codecCorsOrigins: list(env, 'RELAYFLOW_CODEC_CORS_ORIGINS'),
      auditUnmaskKeyIds: list(env, 'RELAYFLOW_AUDIT_UNMASK_KEY_IDS'),
      provisioningWebhookSecret: webhookSecret(env),
      provisioningWebhookPreviousSecret: previousWebhookSecret(env),
      senderIdCallbackSecrets: senderIdCallbackSecrets(env),
      conversationWebhookSecret: sandboxDefaulted(env, 'RELAYFLOW_CONVERSATION_WEBHOOK_SECRET', SANDBOX_CONVERSATION_WEBHOOK_SECRET, 8),
      mmsPostbackToken: sandboxDefaulted(env, 'RELAYFLOW_MMS_POSTBACK_TOKEN', SANDBOX_MMS_POSTBACK_TOKEN, 16),
    },
    platform: loadPlatformConfig(env),
    database: { url: databaseUrl(env) },
    workerMetrics: loadWorkerMetricsConfig(env),
    workerCachedWorkflows: int(env, 'RELAYFLOW_WORKER_CACHED_WORKFLOWS', DEFAULT_WORKER_CACHED_WORKFLOWS, 0, 100_000),
    // The SDK refuses fewer than 2 while workflows are cached.
    workerWorkflowTaskSlots: int(env, 'RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS', DEFAULT_WORKER_WORKFLOW_TASK_SLOTS, 2, 1_000),
    tracing: loadTracingConfig(env),
  };
}

/** RELAYFLOW_VERIFICATION_GEO_RULES (a JSON array of rules), RELAYFLOW_VERIFICATION_GEO_DEFAULT, RELAYFLOW_VERIFICATION_GEO_CACHE_MS. */
function geoSettings(env: Env): GeoSettings {
  const name = 'RELAYFLOW_VERIFICATION_GEO_RULES';
  let rules: GeoRule[] = [];
  const text = env[name]?.trim();
  if (text) {
    try {
      rules = parseGeoRules(text);
    } catch (err) {
      throw new ConfigError(name, (err as Error).message);
    }
  }
  const defaultAction = str(env, 'RELAYFLOW_VERIFICATION_GEO_DEFAULT', 'allow');
  if (!(GEO_ACTIONS as readonly string[]).includes(defaultAction)) {
    throw new ConfigError('RELAYFLOW_VERIFICATION_GEO_DEFAULT', `must be one of ${GEO_ACTIONS.join(', ')} (got "${defaultAction}")`);
  }
  return { rules, defaultAction: defaultAction as GeoAction, cacheMs: int(env, 'RELAYFLOW_VERIFICATION_GEO_CACHE_MS', 2_000, 0, 60_000) };
}

/** RELAYFLOW_VERIFICATION_RATE_LIMITS: a JSON array of limits (common/verification-limits.ts). */
function rateLimitSettings(env: Env): RateLimit[] {
  const name = 'RELAYFLOW_VERIFICATION_RATE_LIMITS';
  const text = env[name]?.trim();
  if (!text) return [];
  try {
    return parseRateLimits(text);
  } catch (err) {
    throw new ConfigError(name, (err as Error).message);
  }
}

/** RELAYFLOW_VERIFICATION_PUMPING_*: the SMS-pumping guard (on by default). */
function pumpingSettings(env: Env): PumpingSettings {
  const onOff = str(env, 'RELAYFLOW_VERIFICATION_PUMPING_GUARD', 'on');
  if (onOff !== 'on' && onOff !== 'off') throw new ConfigError('RELAYFLOW_VERIFICATION_PUMPING_GUARD', `must be on or off (got "${onOff}")`);
  const floorName = 'RELAYFLOW_VERIFICATION_PUMPING_FLOOR';
  const floorText = str(env, floorName, '0.1');
  const floor = Number(floorText);
  if (!/^(0(\.[0-9]+)?|1(\.0+)?)$/.test(floorText) || !(floor >= 0 && floor <= 1)) {
    throw new ConfigError(floorName, `must be a number from 0 to 1, e.g. 0.1 (got "${floorText}")`);
  }
  const actionName = 'RELAYFLOW_VERIFICATION_PUMPING_ACTION';
  const action = str(env, actionName, 'block');
  if (action !== 'block' && !(VERIFICATION_METHODS as readonly string[]).includes(action)) {
    throw new ConfigError(actionName, `must be block or a method to start instead (${VERIFICATION_METHODS.join(', ')}) (got "${action}")`);
  }
  return {
    enabled: onOff === 'on',
    prefixDigits: int(env, 'RELAYFLOW_VERIFICATION_PUMPING_PREFIX_DIGITS', 6, 2, 15),
    windowMs: int(env, 'RELAYFLOW_VERIFICATION_PUMPING_WINDOW_MS', 3_600_000, 1_000, 7 * 86_400_000),
    minStarts: int(env, 'RELAYFLOW_VERIFICATION_PUMPING_MIN_STARTS', 100, 1, 1_000_000),
    floor,
    action: action as PumpingSettings['action'],
    cacheMs: int(env, 'RELAYFLOW_VERIFICATION_PUMPING_CACHE_MS', 1_000, 0, 60_000),
  };
}

/** loadConfig for an entry point: a configuration error ends the process with one line naming the variable. */
export function loadConfigOrExit(program: string): Config {
  try {
    return loadConfig();
  } catch (err) {
    console.error(`relayflow ${program}: configuration error: ${(err as Error).message}`);
    process.exit(1);
  }
}
