// RCS sender activities: created once, launched once, test numbers only after launch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startStub, failure, rcsInput, type Obj } from '../../helpers/provisioning-stub.js';

test('createRcsSender: found by displayName on page 2 without a POST; otherwise one POST; a lost answer creates once', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders'] });
  stub.store.rcs.push({ id: 'r1', displayName: 'One' }, { id: 'r2', displayName: 'Two' }, { id: 'r3', displayName: 'Acme', state: 'LAUNCHED' });
  const found = await stub.activities.createRcsSender(rcsInput());
  assert.deepEqual([found.created, found.id], [false, 'r3']);
  assert.deepEqual(stub.writes(), []);

  await failure(stub.activities.createRcsSender(rcsInput('Beta')), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createRcsSender(rcsInput('Beta'));
  assert.equal(retried.created, false);
  assert.equal(stub.store.rcs.filter((s) => s.displayName === 'Beta').length, 1);

  const fresh = await stub.activities.createRcsSender(rcsInput('Gamma'));
  assert.deepEqual([fresh.created, fresh.state], [true, 'DRAFT']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders', 'POST rcs/senders']);
  assert.deepEqual(stub.seen.filter((r) => r.method === 'POST').at(-1)!.body, rcsInput('Gamma'));
});

test('createRcsSender: a banner with the wrong dimensions fails non-retryably with the required size', async (t) => {
  const stub = await startStub(t);
  const details = await failure(stub.activities.createRcsSender(rcsInput('Acme', 1000)), 'PlatformValidationError', true);
  assert.equal(details.code, 'file_has_wrong_dimensions');
  assert.deepEqual((details.details as Obj).additionalInformation, { requiredWidth: 1440, requiredHeight: 448 });
});

test('RCS launch path: questionnaire, launch once, test numbers only after the launch, relaunch after a rejection', async (t) => {
  const stub = await startStub(t);
  const sender = await stub.activities.createRcsSender(rcsInput());
  const senderId = sender.id;
  const contact = { email: 'ops@acme.test' };

  // Test number before the launch: reported, not thrown.
  assert.deepEqual(await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '+33611111111' }), { added: false, reason: 'not_allowed_before_launch' });

  // Launch before answering: questionnaire_incomplete, non-retryable.
  const incomplete = await failure(stub.activities.launchRcsSender({ senderId, contact }), 'PlatformValidationError', true);
  assert.equal(incomplete.code, 'questionnaire_incomplete');

  // Missing answers name each question.
  const missing = await failure(stub.activities.answerRcsQuestionnaire({ senderId, answers: {} }), 'PlatformValidationError', true);
  assert.deepEqual(
    ((missing.details as Obj).validationErrors as Array<{ field: string }>).map((e) => e.field),
    ['answers.brand_description', 'answers.siren'],
  );
  assert.deepEqual(await stub.activities.answerRcsQuestionnaire({ senderId, answers: { brand_description: 'Shoes', siren: '123456789' } }), {
    senderId,
    answeredQuestionIds: ['brand_description', 'siren'],
  });

  const launched = await stub.activities.launchRcsSender({ senderId, contact });
  assert.deepEqual([launched.launched, launched.state, launched.countryStatus.FR!.status], [true, 'IN_REVIEW', 'PENDING']);
  const again = await stub.activities.launchRcsSender({ senderId, contact });
  assert.deepEqual([again.launched, again.state], [false, 'IN_REVIEW']);
  assert.deepEqual(
    stub.writes().filter((w) => w.endsWith(':launch')),
    [`POST rcs/senders/${senderId}:launch`, `POST rcs/senders/${senderId}:launch`],
  );
  assert.equal(stub.seen.filter((r) => r.path.endsWith(':launch')).length, 2, 'the second launch call sent nothing');

  const added = await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'] });
  assert.deepEqual(added, { added: true, testNumbers: [{ phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'], state: 'PENDING' }] });
  const repeated = await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '33 6 11 11 11 11' });
  assert.equal(repeated.added, true);
  assert.equal((stub.store.rcs[0]!.testNumbers as Obj[]).length, 1, 'the same number is not added twice');

  // Nothing rejected: relaunch sends nothing.
  const notNeeded = await stub.activities.relaunchRcsSender({ senderId, contact });
  assert.equal(notNeeded.relaunched, false);
  assert.equal(stub.seen.filter((r) => r.path.endsWith(':relaunch')).length, 0);
  (stub.store.rcs[0]!.countryStatus as Record<string, Obj>).FR!.status = 'REJECTED';
  stub.store.rcs[0]!.state = 'REJECTED';
  const relaunched = await stub.activities.relaunchRcsSender({ senderId, contact: { phoneNumber: '+33600000000' } });
  assert.deepEqual([relaunched.relaunched, relaunched.state], [true, 'IN_REVIEW']);
  assert.deepEqual(stub.seen.find((r) => r.path.endsWith(':relaunch'))!.body, { contact: { phoneNumber: '+33600000000' } });
  assert.equal((await stub.activities.relaunchRcsSender({ senderId, contact })).relaunched, false);

  assert.equal((await stub.activities.getRcsSender({ senderId })).state, 'IN_REVIEW');
});

test('launchRcsSender retried after a lost answer does not launch twice', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders/r1:launch'] });
  stub.store.rcs.push({
    id: 'r1',
    displayName: 'Acme',
    state: 'DRAFT',
    countryStatus: { FR: { status: 'NOT_LAUNCHED', operators: {} } },
    comments: [],
    testNumbers: [],
  });
  stub.store.answers.set('r1', { brand_description: 'x', siren: '1' });
  const input = { senderId: 'r1', contact: { email: 'ops@acme.test' } };
  await failure(stub.activities.launchRcsSender(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.launchRcsSender(input);
  assert.deepEqual([retried.launched, retried.state], [false, 'IN_REVIEW']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1:launch']);
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, { contact: { email: 'ops@acme.test' } });
});

test('relaunchRcsSender: a REJECTED country of a PARTIALLY_LAUNCHED sender is relaunched; nothing is sent while IN_REVIEW', async (t) => {
  const stub = await startStub(t);
  const countryStatus = { FR: { status: 'LAUNCHED', operators: {} }, US: { status: 'REJECTED', operators: {} } };
  stub.store.rcs.push(
    { id: 'r1', displayName: 'A', state: 'PARTIALLY_LAUNCHED', countryStatus, comments: [], testNumbers: [] },
    { id: 'r2', displayName: 'B', state: 'IN_REVIEW', countryStatus: structuredClone(countryStatus), comments: [], testNumbers: [] },
  );
  const contact = { email: 'ops@acme.test' };
  const partial = await stub.activities.relaunchRcsSender({ senderId: 'r1', contact });
  assert.deepEqual([partial.relaunched, partial.state], [true, 'IN_REVIEW']);
  const inReview = await stub.activities.relaunchRcsSender({ senderId: 'r2', contact });
  assert.deepEqual([inReview.relaunched, inReview.state], [false, 'IN_REVIEW']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1:relaunch']);
});

test('addRcsTestNumber retried after a lost answer adds the number once', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders/r1/testNumbers'] });
  stub.store.rcs.push({ id: 'r1', displayName: 'Acme', state: 'LAUNCHED', countryStatus: {}, comments: [], testNumbers: [] });
  await failure(stub.activities.addRcsTestNumber({ senderId: 'r1', phoneNumber: '+33611111111' }), 'PlatformUnavailableError', false);
  const retried = await stub.activities.addRcsTestNumber({ senderId: 'r1', phoneNumber: '+33611111111' });
  assert.equal(retried.added, true);
  assert.equal((stub.store.rcs[0]!.testNumbers as Obj[]).length, 1);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1/testNumbers']);
});
