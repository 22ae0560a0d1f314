import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { ConfigError, loadConfig, PLATFORM_AREAS, PLATFORM_DEFAULT_URLS, sandboxPlatformUrls, wholeNumber } from '../../common/config.js';

const base = {
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
};
/** The real platform (no sandbox) with nothing platform-specific set. */
const production = { RELAYFLOW_API_KEYS: base.RELAYFLOW_API_KEYS, RELAYFLOW_CODEC_KEYS: base.RELAYFLOW_CODEC_KEYS };
const oauthKey = { PLATFORM_PROJECT_ID: 'p1', PLATFORM_KEY_ID: 'k', PLATFORM_KEY_SECRET: 's' };
const appKey = { PLATFORM_APP_KEY: 'a', PLATFORM_APP_SECRET: Buffer.alloc(32, 1).toString('base64') };

function fails(env: Record<string, string | undefined>, variable: string, rule: RegExp) {
  assert.throws(
    () => loadConfig(env),
    (err: unknown) => {
      assert.ok(err instanceof Error, 'an Error');
      assert.match(err.message, new RegExp(`^${variable.replace(/[*]/g, '\\*')}`), `names ${variable}: ${err.message}`);
      assert.match(err.message, rule);
      return true;
    },
  );
}

describe('configuration', () => {
  test("a worker's workflow task slots: the SDK's 40 unless RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS says otherwise, at least 2", () => {
    assert.equal(loadConfig(base).workerWorkflowTaskSlots, 40);
    assert.equal(loadConfig({ ...base, RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS: '4' }).workerWorkflowTaskSlots, 4);
    fails({ ...base, RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS: '1' }, 'RELAYFLOW_WORKER_WORKFLOW_TASK_SLOTS', /2/);
  });

  test('sandbox mode fills the sandbox addresses and its development account', () => {
    const c = loadConfig(base);
    assert.equal(c.platform.mode, 'sandbox');
    assert.deepEqual(c.platform.urls, sandboxPlatformUrls('http://127.0.0.1:4010'));
    assert.equal(c.platform.urls.conversation.eu, 'http://127.0.0.1:4010/conversation/eu');
    assert.equal(c.api.port, 3000);
    assert.equal(c.taskQueue, 'relayflow');
    assert.equal(c.temporal.namespace ?? 'default', 'default');
  });

  test('missing values name their variable', () => {
    fails({ ...base, RELAYFLOW_API_KEYS: undefined }, 'RELAYFLOW_API_KEYS', /required/);
    fails({ ...base, RELAYFLOW_CODEC_KEYS: undefined }, 'RELAYFLOW_CODEC_KEYS', /required/);
    fails({ ...base, PLATFORM_SANDBOX_URL: undefined }, 'PLATFORM_PROJECT_ID', /required when the subprojects and provisioning areas are enabled/);
  });

  test('malformed values name their variable and the rule', () => {
    fails({ ...base, RELAYFLOW_API_PORT: 'eighty' }, 'RELAYFLOW_API_PORT', /whole number/);
    fails({ ...base, RELAYFLOW_API_PORT: '70000' }, 'RELAYFLOW_API_PORT', /between 0 and 65535/);
    fails({ ...base, RELAYFLOW_API_KEYS: 'short' }, 'RELAYFLOW_API_KEYS', /at least 24/);
    fails({ ...base, PLATFORM_SANDBOX_URL: 'not a url' }, 'PLATFORM_SANDBOX_URL', /absolute http/);
    fails({ ...base, PLATFORM_SANDBOX_URL: 'ftp://x' }, 'PLATFORM_SANDBOX_URL', /http or https/);
    fails({ ...base, RELAYFLOW_LOG_LEVEL: 'loud' }, 'RELAYFLOW_LOG_LEVEL', /one of/);
    fails({ ...base, RELAYFLOW_CODEC_KEYS: 'k1:c2hvcnQ=' }, 'RELAYFLOW_CODEC_KEYS', /32 bytes/);
    fails({ ...base, PLATFORM_APP_SECRET: 'not base64!' }, 'PLATFORM_APP_SECRET', /base64/);
  });

  test('the real platform: OAuth key only, for the OAuth areas, with the public default addresses', () => {
    const c = loadConfig({ ...production, ...oauthKey, RELAYFLOW_AREAS: 'subprojects,provisioning' });
    assert.equal(c.platform.mode, 'platform');
    assert.deepEqual(c.platform.areas, ['subprojects', 'provisioning']);
    assert.deepEqual(c.platform.urls, PLATFORM_DEFAULT_URLS);
    assert.equal(c.platform.urls.auth, 'https://auth.sinch.com');
    assert.equal(c.platform.urls.subprojects, 'https://subproject.api.sinch.com');
    assert.equal(c.platform.urls.provisioning, 'https://provisioning.api.sinch.com');
    assert.equal(c.platform.urls.conversation.eu, 'https://eu.conversation.api.sinch.com');
    // Every default is https and has no trailing slash (clients append their paths).
    const all = Object.values(c.platform.urls).flatMap((u: string | Record<string, string>) => (typeof u === 'string' ? [u] : Object.values(u)));
    assert.equal(all.length, 17);
    for (const u of all) assert.ok(new URL(u).protocol === 'https:' && !u.endsWith('/'), u);
    assert.deepEqual(c.platform.credentials, { projectId: 'p1', keyId: 'k', keySecret: 's', appKey: '', appSecret: '', mmsApiKey: '' });
  });

  test('by default the areas relayflow runs today are enabled, and each needs only its credentials', () => {
    const c = loadConfig({ ...production, ...oauthKey, ...appKey });
    assert.deepEqual(c.platform.areas, ['subprojects', 'verification', 'provisioning']);
    assert.equal(c.platform.credentials.mmsApiKey, '');
    // Verification alone needs the application key, not the OAuth key.
    const v = loadConfig({ ...production, ...appKey, RELAYFLOW_AREAS: 'verification' });
    assert.deepEqual(v.platform.areas, ['verification']);
    assert.equal(v.platform.credentials.projectId, '');
    assert.equal(v.platform.credentials.appSecret, appKey.PLATFORM_APP_SECRET);
  });

  test('a missing credential names its variable and the enabled areas that need it', () => {
    const noSecret = { ...production, ...oauthKey, PLATFORM_APP_KEY: 'a' };
    fails(noSecret, 'PLATFORM_APP_SECRET', /^PLATFORM_APP_SECRET: is required when the verification area is enabled \(RELAYFLOW_AREAS\)$/);
    fails({ ...noSecret, RELAYFLOW_AREAS: 'voice,verification' }, 'PLATFORM_APP_SECRET', /when the verification and voice areas are enabled/);
    fails({ ...production, ...appKey, RELAYFLOW_AREAS: 'verification,senderid' }, 'PLATFORM_PROJECT_ID', /when the senderid area is enabled/);
    fails(
      { ...production, ...oauthKey, RELAYFLOW_AREAS: 'mms' },
      'PLATFORM_MMS_API_KEY',
      /^PLATFORM_MMS_API_KEY: is required when the mms area is enabled \(RELAYFLOW_AREAS\)$/,
    );
    const all = loadConfig({ ...production, ...oauthKey, ...appKey, PLATFORM_MMS_API_KEY: 'm', RELAYFLOW_AREAS: PLATFORM_AREAS.join(',') });
    assert.deepEqual(all.platform.areas, PLATFORM_AREAS);
    assert.equal(all.platform.credentials.mmsApiKey, 'm');
  });

  test('a credential that is set is validated even when no enabled area needs it', () => {
    fails({ ...production, ...oauthKey, RELAYFLOW_AREAS: 'subprojects', PLATFORM_APP_SECRET: 'not base64!' }, 'PLATFORM_APP_SECRET', /base64/);
  });

  test('an address variable overrides its default and is still validated', () => {
    const env = { ...production, ...oauthKey, RELAYFLOW_AREAS: 'subprojects,provisioning' };
    const c = loadConfig({ ...env, PLATFORM_AUTH_URL: 'https://auth.proxy.internal/', PLATFORM_CONVERSATION_URL_EU: 'https://conv-eu.proxy.internal' });
    assert.equal(c.platform.urls.auth, 'https://auth.proxy.internal');
    assert.equal(c.platform.urls.conversation.eu, 'https://conv-eu.proxy.internal');
    assert.equal(c.platform.urls.conversation.us, PLATFORM_DEFAULT_URLS.conversation.us);
    assert.equal(c.platform.urls.subprojects, PLATFORM_DEFAULT_URLS.subprojects);
    fails({ ...env, PLATFORM_VOICE_URL: 'not a url' }, 'PLATFORM_VOICE_URL', /absolute http/);
    fails({ ...env, PLATFORM_BATCH_URL_BR: 'ftp://batch' }, 'PLATFORM_BATCH_URL_BR', /http or https/);
  });

  test('RELAYFLOW_AREAS rejects unknown areas and lists the valid ones', () => {
    fails(
      { ...production, ...oauthKey, RELAYFLOW_AREAS: 'subprojects,sms' },
      'RELAYFLOW_AREAS',
      /unknown area "sms" \(valid: subprojects, verification, provisioning, voice, mms, conversation, senderid\)/,
    );
    fails({ ...base, RELAYFLOW_AREAS: 'fax' }, 'RELAYFLOW_AREAS', /unknown area "fax"/);
    // Case, spaces and repeats do not matter; the order is the canonical one.
    const c = loadConfig({ ...production, ...oauthKey, RELAYFLOW_AREAS: ' Provisioning , subprojects,provisioning ' });
    assert.deepEqual(c.platform.areas, ['subprojects', 'provisioning']);
  });

  test('sandbox mode enables every area with the development account unless RELAYFLOW_AREAS narrows it', () => {
    const c = loadConfig(base);
    assert.equal(c.platform.mode, 'sandbox');
    assert.deepEqual(c.platform.areas, PLATFORM_AREAS);
    assert.equal(c.platform.credentials.mmsApiKey, 'sandbox-mms-api-key');
    const v = loadConfig({ ...base, RELAYFLOW_AREAS: 'verification' });
    assert.deepEqual(v.platform.areas, ['verification']);
    assert.equal(v.platform.credentials.projectId, 'sandbox-project');
    assert.deepEqual(v.platform.urls, sandboxPlatformUrls('http://127.0.0.1:4010'));
  });

  test('Temporal settings follow the standard variables', () => {
    const c = loadConfig({ ...base, TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'relay' });
    assert.equal(c.temporal.connectionOptions.address, 'temporal.internal:7233');
    assert.equal(c.temporal.namespace, 'relay');
  });

  test("the schema's own rules name the variable: a wrong type, out of range, an unknown value, a bad format", () => {
    fails({ ...base, RELAYFLOW_CAMPAIGN_CHUNK_SIZE: 'many' }, 'RELAYFLOW_CAMPAIGN_CHUNK_SIZE', /: must be a whole number \(got "many"\)$/);
    fails({ ...base, RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '1.5' }, 'RELAYFLOW_CAMPAIGN_CHUNK_SIZE', /whole number/);
    fails({ ...base, RELAYFLOW_VOICE_ANSWER_DEADLINE_MS: '60000' }, 'RELAYFLOW_VOICE_ANSWER_DEADLINE_MS', /: must be between 100 and 10000 \(got "60000"\)$/);
    fails({ ...base, RELAYFLOW_VERIFICATION_MAX_RESENDS: '-1' }, 'RELAYFLOW_VERIFICATION_MAX_RESENDS', /between 0 and 100/);
    fails({ ...base, RELAYFLOW_VERIFICATION_GEO_DEFAULT: 'deny' }, 'RELAYFLOW_VERIFICATION_GEO_DEFAULT', /: must be one of allow, block \(got "deny"\)$/);
    fails({ ...base, RELAYFLOW_PUBLIC_URL: 'relayflow.example' }, 'RELAYFLOW_PUBLIC_URL', /: must be an absolute http\(s\) URL \(got "relayflow.example"\)$/);
    fails({ ...base, RELAYFLOW_DATABASE_URL: 'mysql://db' }, 'RELAYFLOW_DATABASE_URL', /: must be a postgres:\/\/ or postgresql:\/\/ URL$/);
    fails({ ...base, RELAYFLOW_MMS_POSTBACK_TOKEN: 'a/b/c/d/e/f/g/h/i/j' }, 'RELAYFLOW_MMS_POSTBACK_TOKEN', /URL-safe/);
  });

  test('several bad variables are reported together, in the order of the schema, one a line', () => {
    try {
      loadConfig({ ...base, RELAYFLOW_AREAS: 'fax', RELAYFLOW_LOG_LEVEL: 'loud', RELAYFLOW_API_PORT: 'eighty', RELAYFLOW_CODEC_KEYS: undefined });
      assert.fail('should throw');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.map((p) => p.variable),
        ['RELAYFLOW_CODEC_KEYS', 'RELAYFLOW_API_PORT', 'RELAYFLOW_LOG_LEVEL', 'RELAYFLOW_AREAS'],
      );
      assert.equal(err.variable, 'RELAYFLOW_CODEC_KEYS');
      const lines = err.message.split('\n');
      assert.equal(lines.length, 4);
      assert.equal(lines[0], 'RELAYFLOW_CODEC_KEYS: is required');
      assert.match(lines[3]!, /^RELAYFLOW_AREAS: unknown area "fax"/);
    }
  });

  test('a rule reading a variable the schema refused is not run: no second guess about it', () => {
    // A bad sandbox URL does not turn into "the real platform, with its credentials missing".
    try {
      loadConfig({ ...base, PLATFORM_SANDBOX_URL: 'sandbox:4010' });
      assert.fail('should throw');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.map((p) => p.variable),
        ['PLATFORM_SANDBOX_URL'],
      );
    }
  });

  test('a secret is never echoed; a blank variable counts as unset', () => {
    const secret = 'short-sec';
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_MMS_POSTBACK_TOKEN: secret }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'RELAYFLOW_MMS_POSTBACK_TOKEN' && !err.message.includes(secret),
    );
    assert.throws(
      () => loadConfig({ ...base, RELAYFLOW_DATABASE_URL: 'mysql://user:hunter2@db' }),
      (err: unknown) => err instanceof ConfigError && !err.message.includes('hunter2'),
    );
    const c = loadConfig({ ...base, RELAYFLOW_API_PORT: '  ', RELAYFLOW_LOG_LEVEL: '', RELAYFLOW_CAMPAIGN_CHUNK_SIZE: ' 300 ' });
    assert.equal(c.api.port, 3000);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.processes.campaigns.chunkSize, 300);
  });

  test('wholeNumber (the standalone sandbox) reads one variable by the same rules', () => {
    assert.equal(wholeNumber({}, 'SANDBOX_PORT', 0, 65535), undefined);
    assert.equal(wholeNumber({ SANDBOX_PORT: ' 4011 ' }, 'SANDBOX_PORT', 0, 65535), 4011);
    assert.throws(() => wholeNumber({ SANDBOX_PORT: 'x' }, 'SANDBOX_PORT', 0, 65535), /^ConfigError: SANDBOX_PORT: must be a whole number \(got "x"\)$/);
    assert.throws(() => wholeNumber({ SANDBOX_PORT: '70000' }, 'SANDBOX_PORT', 0, 65535), /^ConfigError: SANDBOX_PORT: must be between 0 and 65535/);
  });

  test('ConfigError carries the variable', () => {
    try {
      loadConfig({ ...base, RELAYFLOW_TASK_QUEUE: '   ', RELAYFLOW_API_PORT: 'x' });
      assert.fail('should throw');
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, 'RELAYFLOW_API_PORT');
    }
  });
});
