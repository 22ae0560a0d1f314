// The sender ID callback secret at worker start-up (workers/callbacks.ts): set to relayflow's current secret,
// left alone when it already is, rotated when the current one changes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../common/config.js';
import { createLogger } from '../../common/logger.js';
import { createPlatformClients } from '../../platform/index.js';
import { createSandbox, type Sandbox } from '../../sandbox/index.js';
import { wireCallbacks } from '../../workers/callbacks.js';

describe('sender ID callback secret at worker start-up', () => {
  const PUBLIC_URL = 'https://relayflow.example.test';
  const base = { RELAYFLOW_API_KEYS: 'k'.repeat(24), RELAYFLOW_CODEC_KEYS: `k1:${Buffer.alloc(32).toString('base64')}`, RELAYFLOW_PUBLIC_URL: PUBLIC_URL };
  const logger = createLogger({ name: 'test', level: 'silent' });
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
    await sb.listen();
  });
  after(async () => sb.close());

  test('sets the platform secret to the current one, idempotently, and follows a rotation', async () => {
    const wire = async (secrets: string) => {
      const config = loadConfig({ ...base, PLATFORM_SANDBOX_URL: sb.url, RELAYFLOW_SENDERID_CALLBACK_SECRETS: secrets });
      const platform = createPlatformClients(config.platform);
      const out = await wireCallbacks({
        config,
        publicUrl: PUBLIC_URL,
        provisioning: platform.provisioning,
        senderid: platform.senderid,
        logger,
        retryDelaysMs: [10],
      });
      return { out: out.senderIdCallback!, secret: (await platform.senderid.getCallbackConfiguration())?.hmacSecret };
    };
    const first = await wire('s-one');
    assert.equal(first.out.status, 'registered');
    assert.match(first.out.detail, /secret set/);
    assert.equal(first.secret, 's-one');
    const again = await wire('s-one');
    assert.match(again.out.detail, /already current/);
    const rotated = await wire('s-two,s-one');
    assert.match(rotated.out.detail, /rotated/);
    assert.equal(rotated.secret, 's-two');
  });
});
