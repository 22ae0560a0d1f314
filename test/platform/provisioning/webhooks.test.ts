// webhooks.ensure: the registration every worker runs at start-up, so it must be safe to repeat and to race,
// and must bring an existing webhook to the configured triggers and, during a rotation, the configured secret.
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
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: true, updated: [] });
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, { target, secret, triggers: [...PROVISIONING_TRIGGERS] });
  // Outside a rotation the platform's secret (never shown) is taken to be the one it was created with.
  assert.deepEqual(await webhooks.ensure(target, 'another-secret'), { id: 'wh-1', created: false, updated: [] });
  assert.deepEqual(stub.writes(), ['POST webhooks']);

  for (let i = 2; i <= 15; i++) await webhooks.ensure(`https://relayflow.test/hooks/${i}`, secret);
  assert.equal(stub.store.webhooks.length, 15);
  await assert.rejects(webhooks.ensure('https://relayflow.test/hooks/16', secret), PlatformValidationError);
});

test('ensure leaves an equal webhook alone: same triggers in another order, no rotation, nothing written', async (t) => {
  const stub = await startStub(t);
  const webhooks = stub.clients.provisioning.webhooks;
  stub.store.webhooks.push({ id: 'wh-old', target, triggers: [...PROVISIONING_TRIGGERS].reverse(), secret });
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-old', created: false, updated: [] });
  assert.deepEqual(await webhooks.ensure(target, secret, undefined, { rotating: false }), { id: 'wh-old', created: false, updated: [] });
  assert.deepEqual(stub.writes(), []);
});

test('ensure updates a webhook whose triggers differ (with the secret), and gives it the secret during a rotation', async (t) => {
  const stub = await startStub(t);
  const webhooks = stub.clients.provisioning.webhooks;
  stub.store.webhooks.push({ id: 'wh-old', target, triggers: ['CHATA_TEMPLATE_APPROVED'], secret: 'old-secret' });

  // A trigger missing: one PATCH with the configured triggers and secret, then nothing more to do.
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-old', created: false, updated: ['secret', 'triggers'] });
  const patch = stub.seen.find((r) => r.method === 'PATCH')!;
  assert.equal(patch.path, 'webhooks/wh-old');
  assert.deepEqual(patch.body, { secret, triggers: [...PROVISIONING_TRIGGERS] });
  assert.deepEqual(stub.store.webhooks[0], { id: 'wh-old', target, triggers: [...PROVISIONING_TRIGGERS], secret });
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-old', created: false, updated: [] });

  // A trigger too many (a subset configured) differs as well.
  const fewer = PROVISIONING_TRIGGERS.slice(0, 3);
  assert.deepEqual((await webhooks.ensure(target, secret, fewer)).updated, ['secret', 'triggers']);
  assert.deepEqual(stub.store.webhooks[0]!.triggers, fewer);

  // Rotating: the triggers are right, the secret cannot be seen, so only the secret is sent.
  assert.deepEqual(await webhooks.ensure(target, 'new-secret-456', fewer, { rotating: true }), { id: 'wh-old', created: false, updated: ['secret'] });
  assert.deepEqual(stub.seen.filter((r) => r.method === 'PATCH').at(-1)!.body, { secret: 'new-secret-456' });
  assert.equal(stub.store.webhooks[0]!.secret, 'new-secret-456');
  assert.deepEqual(stub.writes(), ['PATCH webhooks/wh-old', 'PATCH webhooks/wh-old', 'PATCH webhooks/wh-old']);
});

test('ensure after a lost answer reads the webhook back instead of failing or creating a second', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST webhooks'] });
  const webhooks = stub.clients.provisioning.webhooks;
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: false, updated: [] });
  assert.deepEqual(await webhooks.ensure(target, secret), { id: 'wh-1', created: false, updated: [] });
  assert.equal(stub.store.webhooks.length, 1);
  assert.ok(stub.seen.every((r) => r.authorization === 'Bearer tok'));
});

test('ensure racing another worker: a 409 on create is answered with the webhook the other one made, brought up to date', async (t) => {
  const stub = await startStub(t, {
    beforeCreate: { webhooks: () => void stub.store.webhooks.push({ id: 'wh-other', target, triggers: [], secret }) },
  });
  assert.deepEqual(await stub.clients.provisioning.webhooks.ensure(target, secret), { id: 'wh-other', created: false, updated: ['secret', 'triggers'] });
  assert.equal(stub.store.webhooks.length, 1);
  assert.deepEqual(stub.store.webhooks[0]!.triggers, [...PROVISIONING_TRIGGERS]);
});
