// Configuration is read and validated once at start-up; every problem names its variable.
import { loadClientConnectConfig, type ClientConnectConfig } from '@temporalio/envconfig';
import { parseCodecKeys, type CodecKey } from './codec.js';

export type Region = 'us' | 'eu' | 'br';
export const REGIONS: readonly Region[] = ['us', 'eu', 'br'];

export interface PlatformUrls {
  auth: string;
  subprojects: string;
  verification: string;
  voice: string;
  voiceConfig: string;
  mms: string;
  senderId: string;
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

export interface PlatformConfig {
  mode: 'sandbox' | 'platform';
  urls: PlatformUrls;
  credentials: PlatformCredentials;
  requestTimeoutMs: number;
}

export interface ApiConfig {
  host: string;
  port: number;
  apiKeys: string[];
  /** Base URL the platform uses to reach relayflow's callback routes. */
  publicUrl: string;
  /** Origins (the Temporal web UI) allowed to call the codec endpoint from a browser. */
  codecCorsOrigins: string[];
  /** The secret the platform signs provisioning webhooks with; unset: the intake refuses every delivery. */
  provisioningWebhookSecret: string | undefined;
}

export interface VerificationSettings {
  /** Default time per fallback step, by method. */
  stepTimeoutMs: Record<'sms' | 'flashcall' | 'callout' | 'seamless', number>;
  codeExpiryMs: number;
  maxReportAttempts: number;
  resendCooldownMs: number;
  maxResends: number;
  /** At most guardMax verifications started per number per guardWindowMs, across all processes. */
  guardMax: number;
  guardWindowMs: number;
}

export interface ProvisioningSettings {
  /** Read the resource when no webhook has arrived for this long. */
  pollIntervalMs: number;
  /** Report a decision overdue after this long under review (the process keeps waiting). */
  overdueAfterMs: number;
}

export interface ProcessSettings {
  subproject: { usableTimeoutMs: number; checkIntervalMs: number };
  verification: VerificationSettings;
  provisioning: ProvisioningSettings;
}

export interface Config {
  dataDir: string;
  processes: ProcessSettings;
  logLevel: string;
  taskQueue: string;
  temporal: ClientConnectConfig;
  codecKeys: CodecKey[];
  api: ApiConfig;
  platform: PlatformConfig;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, rule: string) {
    super(`${variable}: ${rule}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Paths under which the sandbox mounts each area; one table so sandbox and config agree. */
export function sandboxPlatformUrls(baseUrl: string): PlatformUrls {
  const base = baseUrl.replace(/\/+$/, '');
  const regional = (area: string) =>
    Object.fromEntries(REGIONS.map((r) => [r, `${base}/${area}/${r}`])) as Record<Region, string>;
  return {
    auth: `${base}/auth`,
    subprojects: `${base}/subprojects`,
    verification: `${base}/verification`,
    voice: `${base}/voice`,
    voiceConfig: `${base}/voice-config`,
    mms: `${base}/mms`,
    senderId: `${base}/senderid`,
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

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number (got "${raw}")`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max} (got ${n})`);
  return n;
}

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
export const SANDBOX_PROVISIONING_WEBHOOK_SECRET = 'sandbox-provisioning-webhook-secret';

function webhookSecret(env: Env): string | undefined {
  const name = 'RELAYFLOW_PROVISIONING_WEBHOOK_SECRET';
  const v = env[name]?.trim() || (env.PLATFORM_SANDBOX_URL?.trim() ? SANDBOX_PROVISIONING_WEBHOOK_SECRET : undefined);
  if (v !== undefined && (v.length < 8 || v.length > 256)) throw new ConfigError(name, 'must be 8 to 256 characters (the platform requires at least 8)');
  return v;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function apiKeys(env: Env): string[] {
  const keys = list(env, 'RELAYFLOW_API_KEYS');
  if (keys.length === 0) throw new ConfigError('RELAYFLOW_API_KEYS', 'is required (comma-separated API keys)');
  for (const [i, k] of keys.entries()) {
    if (k.length < 24) throw new ConfigError('RELAYFLOW_API_KEYS', `key #${i + 1} must be at least 24 characters`);
  }
  return keys;
}

function platformUrls(env: Env): PlatformUrls {
  const regional = (area: string) =>
    Object.fromEntries(REGIONS.map((r) => [r, url(env, `PLATFORM_${area}_URL_${r.toUpperCase()}`)])) as Record<Region, string>;
  return {
    auth: url(env, 'PLATFORM_AUTH_URL'),
    subprojects: url(env, 'PLATFORM_SUBPROJECTS_URL'),
    verification: url(env, 'PLATFORM_VERIFICATION_URL'),
    voice: url(env, 'PLATFORM_VOICE_URL'),
    voiceConfig: url(env, 'PLATFORM_VOICE_CONFIG_URL'),
    mms: url(env, 'PLATFORM_MMS_URL'),
    senderId: url(env, 'PLATFORM_SENDERID_URL'),
    provisioning: url(env, 'PLATFORM_PROVISIONING_URL'),
    conversation: regional('CONVERSATION'),
    template: regional('TEMPLATE'),
    batch: regional('BATCH'),
  };
}

function appSecret(env: Env, fallback?: string): string {
  const v = str(env, 'PLATFORM_APP_SECRET', fallback);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || Buffer.from(v, 'base64').length < 16) {
    throw new ConfigError('PLATFORM_APP_SECRET', 'must be the base64 application secret (at least 16 bytes)');
  }
  return v;
}

/** Sandbox mode when PLATFORM_SANDBOX_URL is set; otherwise every platform address and credential is required. */
export function loadPlatformConfig(env: Env): PlatformConfig {
  const requestTimeoutMs = int(env, 'PLATFORM_REQUEST_TIMEOUT_MS', 10_000, 100, 120_000);
  if (env.PLATFORM_SANDBOX_URL?.trim()) {
    const d = SANDBOX_CREDENTIALS;
    return {
      mode: 'sandbox',
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
    };
  }
  return {
    mode: 'platform',
    urls: platformUrls(env),
    credentials: {
      projectId: str(env, 'PLATFORM_PROJECT_ID'),
      keyId: str(env, 'PLATFORM_KEY_ID'),
      keySecret: str(env, 'PLATFORM_KEY_SECRET'),
      appKey: str(env, 'PLATFORM_APP_KEY'),
      appSecret: appSecret(env),
      mmsApiKey: str(env, 'PLATFORM_MMS_API_KEY'),
    },
    requestTimeoutMs,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadTemporalConfig(env: Env): ClientConnectConfig {
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
        usableTimeoutMs: int(env, 'RELAYFLOW_SUBPROJECT_USABLE_TIMEOUT_MS', 120_000, 1_000, 86_400_000),
        checkIntervalMs: int(env, 'RELAYFLOW_SUBPROJECT_CHECK_INTERVAL_MS', 2_000, 100, 3_600_000),
      },
      verification: {
        stepTimeoutMs: {
          sms: int(env, 'RELAYFLOW_VERIFICATION_SMS_TIMEOUT_MS', 300_000, 1_000, 86_400_000),
          flashcall: int(env, 'RELAYFLOW_VERIFICATION_FLASHCALL_TIMEOUT_MS', 60_000, 1_000, 86_400_000),
          callout: int(env, 'RELAYFLOW_VERIFICATION_CALLOUT_TIMEOUT_MS', 120_000, 1_000, 86_400_000),
          seamless: int(env, 'RELAYFLOW_VERIFICATION_SEAMLESS_TIMEOUT_MS', 60_000, 1_000, 86_400_000),
        },
        codeExpiryMs: int(env, 'RELAYFLOW_VERIFICATION_CODE_EXPIRY_MS', 600_000, 1_000, 86_400_000),
        maxReportAttempts: int(env, 'RELAYFLOW_VERIFICATION_MAX_ATTEMPTS', 3, 1, 100),
        resendCooldownMs: int(env, 'RELAYFLOW_VERIFICATION_RESEND_COOLDOWN_MS', 30_000, 0, 86_400_000),
        maxResends: int(env, 'RELAYFLOW_VERIFICATION_MAX_RESENDS', 3, 0, 100),
        guardMax: int(env, 'RELAYFLOW_VERIFICATION_GUARD_MAX', 5, 1, 1_000_000),
        guardWindowMs: int(env, 'RELAYFLOW_VERIFICATION_GUARD_WINDOW_MS', 3_600_000, 1_000, 30 * 86_400_000),
      },
      provisioning: {
        pollIntervalMs: int(env, 'RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS', 300_000, 100, 86_400_000),
        overdueAfterMs: int(env, 'RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS', 7 * 86_400_000, 100, 365 * 86_400_000),
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
      publicUrl: url(env, 'RELAYFLOW_PUBLIC_URL', `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`),
      codecCorsOrigins: list(env, 'RELAYFLOW_CODEC_CORS_ORIGINS'),
      provisioningWebhookSecret: webhookSecret(env),
    },
    platform: loadPlatformConfig(env),
  };
}
