import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateCodecKey } from '../../../common/codec.js';
import { ConfigError, loadConfig, sandboxPlatformUrls } from '../../../common/config.js';

const base = {
  RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
  RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
  PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
};

function fails(env: Record<string, string | undefined>, variable: string, rule: RegExp) {
  assert.throws(() => loadConfig(env), (err: unknown) => {
    assert.ok(err instanceof Error, 'an Error');
    assert.match(err.message, new RegExp(`^${variable.replace(/[*]/g, '\\*')}`), `names ${variable}: ${err.message}`);
    assert.match(err.message, rule);
    return true;
  });
}

describe('configuration', () => {
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
    fails({ ...base, PLATFORM_SANDBOX_URL: undefined }, 'PLATFORM_AUTH_URL', /required/);
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

  test('platform mode needs every address and credential', () => {
    const env: Record<string, string> = { RELAYFLOW_API_KEYS: base.RELAYFLOW_API_KEYS, RELAYFLOW_CODEC_KEYS: base.RELAYFLOW_CODEC_KEYS };
    for (const v of ['AUTH', 'SUBPROJECTS', 'VERIFICATION', 'VOICE', 'VOICE_CONFIG', 'MMS', 'SENDERID', 'PROVISIONING']) env[`PLATFORM_${v}_URL`] = `https://${v.toLowerCase()}.example.test`;
    for (const a of ['CONVERSATION', 'TEMPLATE', 'BATCH']) for (const r of ['US', 'EU', 'BR']) env[`PLATFORM_${a}_URL_${r}`] = `https://${a.toLowerCase()}-${r.toLowerCase()}.example.test`;
    fails(env, 'PLATFORM_PROJECT_ID', /required/);
    Object.assign(env, { PLATFORM_PROJECT_ID: 'p1', PLATFORM_KEY_ID: 'k', PLATFORM_KEY_SECRET: 's', PLATFORM_APP_KEY: 'a', PLATFORM_APP_SECRET: Buffer.alloc(32, 1).toString('base64'), PLATFORM_MMS_API_KEY: 'm' });
    const c = loadConfig(env);
    assert.equal(c.platform.mode, 'platform');
    assert.equal(c.platform.urls.batch.br, 'https://batch-br.example.test');
    assert.equal(c.platform.credentials.projectId, 'p1');
  });

  test('Temporal settings follow the standard variables', () => {
    const c = loadConfig({ ...base, TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'relay' });
    assert.equal(c.temporal.connectionOptions.address, 'temporal.internal:7233');
    assert.equal(c.temporal.namespace, 'relay');
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
