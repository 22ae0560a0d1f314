// webhooks.ensure: the registration every worker runs at start-up, so it must be safe to repeat and to race.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROVISIONING_TRIGGERS } from '../../../platform/provisioning/types.js';
import { PlatformValidationError } from '../../../platform/index.js';
import { startStub } from '../../helpers/provisioning-stub.js';

const target = 'https://relayflow.test/hooks/provisioning';
const secret = 'secret-123';

test('ensure: creates once for every trigger, then finds the webhook by target; the 15-limit error propagates', async (t) => {
  const stub = await startStub(t);
  const webhooks = stub.clients.provisioning.webhooks;
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: true });
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, { target, secret, triggers: [...PROVISIONING_TRIGGERS] });
  assert.deepEqual(await webhooks.ensure(target, 'another-secret'), { id: 'wh-1', created: false });
  assert.deepEqual(stub.writes(), ['POST webhooks']);

  for (let i = 2; i <= 15; i++) await webhooks.ensure(`https://relayflow.test/hooks/${i}`, secret);
  assert.equal(stub.store.webhooks.length, 15);
  await assert.rejects(webhooks.ensure('https://relayflow.test/hooks/16', secret), PlatformValidationError);
});

test('ensure after a lost answer reads the webhook back instead of failing or creating a second', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST webhooks'] });
  const webhooks = stub.clients.provisioning.webhooks;
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: false });
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: false });
  assert.equal(stub.store.webhooks.length, 1);
  assert.ok(stub.seen.every((r) => r.authorization === 'Bearer tok'));
});

test('ensure racing another worker: a 409 on create is answered with the webhook the other one made', async (t) => {
  const stub = await startStub(t, {
    beforeCreate: { webhooks: () => void stub.store.webhooks.push({ id: 'wh-other', target, triggers: [], secret }) },
  });
  assert.deepEqual(await stub.clients.provisioning.webhooks.ensure(target, secret), { id: 'wh-other', created: false });
  assert.equal(stub.store.webhooks.length, 1);
});
