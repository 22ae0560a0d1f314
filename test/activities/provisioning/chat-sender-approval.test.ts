// CHATA and CHATB sender activities: found by their natural key before created, created once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStub, failure, type Obj } from '../../helpers/provisioning-stub.js';

test('createChataSender: found by phone number (any formatting) on page 2; a DELETED one does not count', async (t) => {
  const stub = await startStub(t);
  stub.store.chata.push(
    { id: 'c1', phoneNumber: '+15550000001', state: 'ACTIVE' },
    { id: 'c2', phoneNumber: '+1 555 000 1111', state: 'DELETED' },
    { id: 'c3', phoneNumber: '+1 (555) 000-1111', state: 'PENDING' },
  );
  const input = { phoneNumber: '+15550001111', displayName: 'Acme' };
  const found = await stub.activities.createChataSender(input);
  assert.deepEqual([found.created, found.id], [false, 'c3']);
  assert.deepEqual(stub.writes(), []);
  assert.equal(stub.seen.filter((r) => r.path === 'chata/senders').length, 2);

  stub.store.chata.splice(2, 1);
  const created = await stub.activities.createChataSender(input);
  assert.deepEqual([created.created, created.state], [true, 'PENDING']);
  assert.deepEqual(stub.writes(), ['POST chata/senders']);
  assert.deepEqual(stub.seen.at(-1)!.body, input);
});

test('createChataSender: a lost answer creates once, for normal and embedded creation', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/senders', 'POST chata/senders:embedded'] });
  const normal = { phoneNumber: '+15550001111', displayName: 'Acme', status: 'SUBMIT' as const };
  await failure(stub.activities.createChataSender(normal), 'PlatformUnavailableError', false);
  assert.equal((await stub.activities.createChataSender(normal)).created, false);

  const embedded = { businessAccountId: 'waba-1', phoneNumberId: 'pn-1', phoneNumber: '+15550002222' };
  await failure(stub.activities.createChataSender(embedded), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createChataSender(embedded);
  assert.deepEqual([retried.created, retried.phoneNumberId], [false, 'pn-1']);
  assert.equal(stub.store.chata.length, 2);
  assert.deepEqual(stub.writes(), ['POST chata/senders', 'POST chata/senders:embedded']);
  // Only the contract's two fields go to the embedded endpoint.
  assert.deepEqual(stub.seen.find((r) => r.path === 'chata/senders:embedded')!.body, { businessAccountId: 'waba-1', phoneNumberId: 'pn-1' });
  assert.equal((await stub.activities.getChataSender({ senderId: retried.id })).id, retried.id);
});

test('CHATB: create once by displayName (found on page 2, lost answer), unknown category non-retryable', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chatb/senders'] });
  stub.store.chatb.push(
    { id: 'b1', displayName: 'One', state: 'ACTIVE' },
    { id: 'b2', displayName: 'Two', state: 'ACTIVE' },
    { id: 'b3', displayName: 'Acme', state: 'REJECTED' },
  );
  const found = await stub.activities.createChatbSender({ displayName: 'Acme', categoryCode: 'RETAIL' });
  assert.deepEqual([found.created, found.id, found.state], [false, 'b3', 'REJECTED']);
  assert.deepEqual(stub.writes(), []);

  const input = { displayName: 'Beta', categoryCode: 'RETAIL', subcategoryCode: 'FASHION' };
  await failure(stub.activities.createChatbSender(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createChatbSender(input);
  assert.equal(retried.created, false);
  assert.equal(stub.store.chatb.filter((s) => s.displayName === 'Beta').length, 1);
  assert.equal((await stub.activities.getChatbSender({ senderId: retried.id })).displayName, 'Beta');

  const details = await failure(stub.activities.createChatbSender({ displayName: 'Gamma', categoryCode: 'NOPE' }), 'PlatformValidationError', true);
  assert.deepEqual((details.details as Obj).validationErrors, [{ field: 'categoryCode', description: 'unknown category code' }]);
  await failure(stub.activities.getChatbSender({ senderId: 'nope' }), 'PlatformNotFoundError', true);
});
