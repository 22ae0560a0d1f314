// The platform relayflow talks to: the sandbox (PLATFORM_SANDBOX_URL) or the real one, its addresses, the areas a
// deployment enables and the credentials those areas need.
import Type, { type Static } from 'typebox';
import { ConfigError, type Problems } from './errors.js';
import { httpUrl, millis, optionalHttpUrl, optionalText } from './fields.js';

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

export interface LoadedPlatformConfig extends PlatformConfig {
  areas: readonly PlatformArea[];
}

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

/**
 * The platform's public production addresses. Origins only, as for the sandbox: each client appends its
 * own versioned path (/verification/v1, /v1alpha1, /v1, /calling/v1, /oauth2/token), except MMS, whose
 * JSON interface is one endpoint that includes /ep/v2. Sources: the platform's API reference pages and its
 * official SDKs' default hosts.
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

const SANDBOX_ACCOUNT = 'sandbox: its development account';
const d = PLATFORM_DEFAULT_URLS;

export const PLATFORM_VARIABLES = Type.Object({
  RELAYFLOW_AREAS: optionalText(
    `comma-separated platform areas this deployment uses (${PLATFORM_AREAS.join(', ')}); credentials are required only for enabled areas`,
    { 'x-rule': `must be a comma-separated list of ${PLATFORM_AREAS.join(', ')}`, 'x-default': `platform: ${DEFAULT_PLATFORM_AREAS.join(',')}; sandbox: all` },
  ),
  PLATFORM_SANDBOX_URL: optionalHttpUrl('use the sandbox at this address (its development account by default); `npm start` sets it'),
  PLATFORM_PROJECT_ID: optionalText(
    'the project (OAuth 2.0 client credentials); required when subprojects, provisioning, conversation or senderid is enabled',
    {
      'x-default': SANDBOX_ACCOUNT,
    },
  ),
  PLATFORM_KEY_ID: optionalText('the project access key ID; required with PLATFORM_PROJECT_ID', { 'x-default': SANDBOX_ACCOUNT, 'x-secret': true }),
  PLATFORM_KEY_SECRET: optionalText('the project access key secret; required with PLATFORM_PROJECT_ID', { 'x-default': SANDBOX_ACCOUNT, 'x-secret': true }),
  PLATFORM_APP_KEY: optionalText('the application key (signed requests); required when verification or voice is enabled', {
    'x-default': SANDBOX_ACCOUNT,
    'x-secret': true,
  }),
  PLATFORM_APP_SECRET: Type.Optional(
    Type.String({
      format: 'base64-16',
      description: 'the application secret, base64 as the dashboard shows it; required with PLATFORM_APP_KEY',
      'x-rule': 'must be the base64 application secret (at least 16 bytes)',
      'x-default': SANDBOX_ACCOUNT,
      'x-secret': true,
    }),
  ),
  PLATFORM_MMS_API_KEY: optionalText('the MMS `x-api-key`; required when mms is enabled', { 'x-default': SANDBOX_ACCOUNT, 'x-secret': true }),
  PLATFORM_AUTH_URL: httpUrl('token service', d.auth),
  PLATFORM_SUBPROJECTS_URL: httpUrl('subprojects', d.subprojects),
  PLATFORM_VERIFICATION_URL: httpUrl('verification', d.verification),
  PLATFORM_VOICE_URL: httpUrl('voice calls (global; regional hosts also work)', d.voice),
  PLATFORM_VOICE_CONFIG_URL: httpUrl('voice application and number configuration', d.voiceConfig),
  PLATFORM_MMS_URL: httpUrl('MMS JSON endpoint', d.mms),
  PLATFORM_SENDERID_URL: httpUrl('sender ID registrations', d.senderid),
  PLATFORM_PROVISIONING_URL: httpUrl('provisioning', d.provisioning),
  PLATFORM_CONVERSATION_URL_US: httpUrl('conversation, US region', d.conversation.us),
  PLATFORM_CONVERSATION_URL_EU: httpUrl('conversation, EU region', d.conversation.eu),
  PLATFORM_CONVERSATION_URL_BR: httpUrl('conversation, BR region', d.conversation.br),
  PLATFORM_TEMPLATE_URL_US: httpUrl('templates, US region', d.template.us),
  PLATFORM_TEMPLATE_URL_EU: httpUrl('templates, EU region', d.template.eu),
  PLATFORM_TEMPLATE_URL_BR: httpUrl('templates, BR region', d.template.br),
  PLATFORM_BATCH_URL_US: httpUrl('conversation batches, US region', d.batch.us),
  PLATFORM_BATCH_URL_EU: httpUrl('conversation batches, EU region', d.batch.eu),
  PLATFORM_BATCH_URL_BR: httpUrl('conversation batches, BR region', d.batch.br),
  PLATFORM_REQUEST_TIMEOUT_MS: millis(10_000, 100, 120_000, 'per platform request'),
});
type PlatformVars = Static<typeof PLATFORM_VARIABLES>;

const origin = (url: string) => url.replace(/\/+$/, '');

/** Every address has its public default; a variable overrides it (a proxy, a staging host). */
function platformUrls(v: PlatformVars): PlatformUrls {
  const regional = (us: string, eu: string, br: string) => ({ us: origin(us), eu: origin(eu), br: origin(br) });
  return {
    auth: origin(v.PLATFORM_AUTH_URL),
    subprojects: origin(v.PLATFORM_SUBPROJECTS_URL),
    verification: origin(v.PLATFORM_VERIFICATION_URL),
    voice: origin(v.PLATFORM_VOICE_URL),
    voiceConfig: origin(v.PLATFORM_VOICE_CONFIG_URL),
    mms: origin(v.PLATFORM_MMS_URL),
    senderid: origin(v.PLATFORM_SENDERID_URL),
    provisioning: origin(v.PLATFORM_PROVISIONING_URL),
    conversation: regional(v.PLATFORM_CONVERSATION_URL_US, v.PLATFORM_CONVERSATION_URL_EU, v.PLATFORM_CONVERSATION_URL_BR),
    template: regional(v.PLATFORM_TEMPLATE_URL_US, v.PLATFORM_TEMPLATE_URL_EU, v.PLATFORM_TEMPLATE_URL_BR),
    batch: regional(v.PLATFORM_BATCH_URL_US, v.PLATFORM_BATCH_URL_EU, v.PLATFORM_BATCH_URL_BR),
  };
}

/** RELAYFLOW_AREAS, comma-separated, any case, repeats allowed; unset: `fallback`. In PLATFORM_AREAS order. */
function platformAreas(given: string | undefined, fallback: readonly PlatformArea[]): readonly PlatformArea[] {
  const names = (given ?? '')
    .split(',')
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return [...fallback];
  const unknown = names.filter((a) => !(PLATFORM_AREAS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new ConfigError(
      'RELAYFLOW_AREAS',
      `unknown area${unknown.length > 1 ? 's' : ''} ${unknown.map((a) => `"${a}"`).join(', ')} (valid: ${PLATFORM_AREAS.join(', ')})`,
    );
  }
  return PLATFORM_AREAS.filter((a) => names.includes(a));
}

const OAUTH_AREAS: readonly PlatformArea[] = ['subprojects', 'provisioning', 'conversation', 'senderid'];
const APPLICATION_AREAS: readonly PlatformArea[] = ['verification', 'voice'];

/** Which areas need each credential: the OAuth key, the application key (signed requests), the MMS key. */
type CredentialVariable =
  'PLATFORM_PROJECT_ID' | 'PLATFORM_KEY_ID' | 'PLATFORM_KEY_SECRET' | 'PLATFORM_APP_KEY' | 'PLATFORM_APP_SECRET' | 'PLATFORM_MMS_API_KEY';
const CREDENTIAL_NEEDS: Record<keyof PlatformCredentials, { variable: CredentialVariable; areas: readonly PlatformArea[] }> = {
  projectId: { variable: 'PLATFORM_PROJECT_ID', areas: OAUTH_AREAS },
  keyId: { variable: 'PLATFORM_KEY_ID', areas: OAUTH_AREAS },
  keySecret: { variable: 'PLATFORM_KEY_SECRET', areas: OAUTH_AREAS },
  appKey: { variable: 'PLATFORM_APP_KEY', areas: APPLICATION_AREAS },
  appSecret: { variable: 'PLATFORM_APP_SECRET', areas: APPLICATION_AREAS },
  mmsApiKey: { variable: 'PLATFORM_MMS_API_KEY', areas: ['mms'] },
};

/** A credential no enabled area needs may be absent (an empty string); the schema has checked one that is set. */
function platformCredential(v: PlatformVars, key: keyof PlatformCredentials, areas: readonly PlatformArea[]): string {
  const { variable, areas: needers } = CREDENTIAL_NEEDS[key];
  const value = v[variable];
  if (value) return value;
  const needing = areas.filter((a) => needers.includes(a));
  if (needing.length === 0) return '';
  const names = needing.length === 1 ? needing[0] : `${needing.slice(0, -1).join(', ')} and ${needing.at(-1)}`;
  throw new ConfigError(variable, `is required when the ${names} area${needing.length > 1 ? 's are' : ' is'} enabled (RELAYFLOW_AREAS)`);
}

/**
 * Sandbox mode when PLATFORM_SANDBOX_URL is set: every area by default, the sandbox's account. Otherwise the
 * real platform: public default addresses, and the credentials that the enabled areas need.
 */
export function loadPlatformConfig(v: PlatformVars, problems: Problems): LoadedPlatformConfig {
  const sandboxUrl = v.PLATFORM_SANDBOX_URL;
  const areas = problems.check(
    ['RELAYFLOW_AREAS'],
    () => platformAreas(v.RELAYFLOW_AREAS, sandboxUrl ? PLATFORM_AREAS : DEFAULT_PLATFORM_AREAS),
    PLATFORM_AREAS,
  );
  const requestTimeoutMs = v.PLATFORM_REQUEST_TIMEOUT_MS;
  if (sandboxUrl) {
    const s = SANDBOX_CREDENTIALS;
    return {
      mode: 'sandbox',
      sandboxUrl: origin(sandboxUrl),
      urls: sandboxPlatformUrls(sandboxUrl),
      credentials: {
        projectId: v.PLATFORM_PROJECT_ID ?? s.projectId,
        keyId: v.PLATFORM_KEY_ID ?? s.keyId,
        keySecret: v.PLATFORM_KEY_SECRET ?? s.keySecret,
        appKey: v.PLATFORM_APP_KEY ?? s.appKey,
        appSecret: v.PLATFORM_APP_SECRET ?? s.appSecret,
        mmsApiKey: v.PLATFORM_MMS_API_KEY ?? s.mmsApiKey,
      },
      requestTimeoutMs,
      areas,
    };
  }
  const credential = (key: keyof PlatformCredentials) =>
    problems.check(['PLATFORM_SANDBOX_URL', 'RELAYFLOW_AREAS', CREDENTIAL_NEEDS[key].variable], () => platformCredential(v, key, areas), '');
  return {
    mode: 'platform',
    urls: platformUrls(v),
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
