// The previous-secret window shared by the provisioning webhook and sender ID intakes, and its configuration.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateCodecKey } from '../../common/codec.js';
import { ConfigError, loadConfig } from '../../common/config.js';
import { acceptedSecrets, rotationUnderWay, secretsInOrder } from '../../common/secret-rotation.js';
import { verifyConversationWebhookWithSecrets } from '../../common/signing.js';
import { signedDelivery } from '../helpers/provisioning.js';

test('acceptedSecrets: current first, a previous one until its end; rotationUnderWay while it lasts', () => {
  const s = { current: 'new-secret', previous: [{ secret: 'old-secret', untilMs: 1_000 }] };
  assert.deepEqual(acceptedSecrets(s, 999), ['new-secret', 'old-secret']);
  assert.deepEqual(acceptedSecrets(s, 1_000), ['new-secret']);
  assert.equal(rotationUnderWay(s, 999), true);
  assert.equal(rotationUnderWay(s, 1_000), false);
  assert.equal(rotationUnderWay({ current: 'same', previous: [{ secret: 'same' }] }), false, 'the same secret twice is no rotation');
  assert.deepEqual(acceptedSecrets(secretsInOrder(['a', '', 'b'])), ['a', 'b'], 'a list without end times (sender ID)');
  assert.deepEqual(acceptedSecrets({ current: undefined, previous: [] }), []);
});

test('verifyConversationWebhookWithSecrets says which secret matched; none configured is no_secret', () => {
  const { payload, headers } = signedDelivery('old-secret', { trigger: 'X' });
  const check = (secrets: string[]) => verifyConversationWebhookWithSecrets({ headers, rawBody: payload, secrets });
  assert.deepEqual(check(['new-secret', 'old-secret']), { ok: true, secretIndex: 1 });
  assert.deepEqual(check(['new-secret']), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(check([]), { ok: false, reason: 'no_secret' });
});

test('RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET needs its end time, an ISO time at most 30 days ahead', () => {
  const base = {
    RELAYFLOW_API_KEYS: 'a-very-long-api-key-for-tests-000',
    RELAYFLOW_CODEC_KEYS: generateCodecKey('k1'),
    PLATFORM_SANDBOX_URL: 'http://127.0.0.1:4010',
  };
  const until = new Date(Date.now() + 3_600_000).toISOString();
  const c = loadConfig({ ...base, RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: 'old-secret', RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: until });
  assert.deepEqual(c.api.provisioningWebhookPreviousSecret, { secret: 'old-secret', untilMs: Date.parse(until) });
  assert.equal(loadConfig(base).api.provisioningWebhookPreviousSecret, undefined);
  const refused = (env: Record<string, string>, variable: string) =>
    assert.throws(
      () => loadConfig({ ...base, ...env }),
      (e: unknown) => e instanceof ConfigError && e.variable.endsWith(variable),
    );
  refused({ RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: 'old-secret' }, 'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL');
  refused({ RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: until }, 'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL');
  refused(
    { RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: 'short', RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: until },
    'RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET',
  );
  refused({ RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: 'old-secret', RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: 'tomorrow' }, '_UNTIL');
  const far = new Date(Date.now() + 31 * 86_400_000).toISOString();
  refused({ RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: 'old-secret', RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: far }, '_UNTIL');
});
