import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import type { PlatformFailureDetails } from '../../../processes/shared/activities/failures.js';
import { startSenderIdStub } from '../../helpers/senderid-stub.js';

const request = (senderId: string, extra: object = {}) => ({
  policyId: 'pol-au-alpha',
  requestDetails: [{ senderIdDetails: [{ senderId }], additionalDetails: [{ companyName: 'Acme' }] }],
  ...extra,
});

/** What Temporal would do: run the activity again after a retryable failure. */
async function withRetries<T>(fn: () => Promise<T>, attempts = 3): Promise<{ result: T; failures: ApplicationFailure[] }> {
  const failures: ApplicationFailure[] = [];
  for (let i = 0; ; i++) {
    try {
      return { result: await fn(), failures };
    } catch (err) {
      assert.ok(err instanceof ApplicationFailure, `attempt ${i + 1} failed with ${String(err)}`);
      assert.equal(err.nonRetryable, false, `attempt ${i + 1}: ${err.message}`);
      failures.push(err);
      if (i + 1 >= attempts) throw err;
    }
  }
}

test('create after a lost answer: the retry finds the registration by its key tag and creates nothing more', async (t) => {
  const stub = await startSenderIdStub(t, { loseAnswer: ['POST registrations'] });
  const { result, failures } = await withRetries(() =>
    stub.activities.createSenderIdRegistration({ registrationKey: 'order-42', request: request('ACME', { tags: ['team-a'] }) }),
  );
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.type, 'PlatformUnavailableError');
  assert.equal(stub.registrations.length, 1);
  assert.equal(result.created, false);
  assert.equal(result.id, stub.registrations[0]!.id);
  assert.deepEqual(result.tags, ['team-a', 'relayflow-key:order-42']);
  // The policy was read once for its market and type; the list asked for both.
  const lists = stub.seen.filter((s) => s.method === 'GET' && s.path === 'registrations');
  assert.ok(lists.every((l) => l.query.marketCode === 'AU' && l.query.registrationType === 'ALPHANUMERIC_SENDER_ID'));
  assert.equal(stub.seen.filter((s) => s.method === 'POST').length, 1);
});

test('create: another key makes another registration; the same key repeated answers the first (created: false), across pages', async (t) => {
  const stub = await startSenderIdStub(t);
  const keys = ['k1', 'k2', 'k3', 'k4', 'k5'];
  for (const key of keys) {
    const r = await stub.activities.createSenderIdRegistration({
      registrationKey: key,
      request: request('ACME'),
      marketCode: 'AU',
      registrationType: 'ALPHANUMERIC_SENDER_ID',
    });
    assert.equal(r.created, true);
  }
  assert.equal(stub.registrations.length, 5);
  const again = await stub.activities.createSenderIdRegistration({
    registrationKey: 'k5',
    request: request('ACME'),
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
  });
  assert.equal(again.created, false);
  assert.equal(again.id, stub.registrations[4]!.id);
  assert.equal(stub.registrations.length, 5);
  // Given market and type, the policy is not read.
  assert.equal(stub.seen.filter((s) => s.path.startsWith('policies/')).length, 0);
});

test('create of a long number (no sender ID yet) is found by its key in the LONG_NUMBER list', async (t) => {
  const stub = await startSenderIdStub(t, { loseAnswer: ['POST registrations'] });
  const req = { policyId: 'pol-au-long', requestDetails: [{ additionalDetails: [{ companyName: 'Acme' }] }] };
  const { result } = await withRetries(() => stub.activities.createSenderIdRegistration({ registrationKey: 'ln-1', request: req }));
  assert.equal(result.created, false);
  assert.equal(result.senderId, null);
  assert.equal(stub.registrations.length, 1);
});

test("a validation refusal is non-retryable and carries the violations (platform 400 and relayflow's own check)", async (t) => {
  const stub = await startSenderIdStub(t);
  const err = await stub.activities
    .createSenderIdRegistration({
      registrationKey: 'bad',
      request: { policyId: 'pol-au-alpha', requestDetails: [{ senderIdDetails: [{ senderId: 'MUCH_TOO_LONG_ID' }] }] },
    })
    .catch((e: unknown) => e);
  assert.ok(err instanceof ApplicationFailure);
  assert.equal(err.type, 'PlatformValidationError');
  assert.equal(err.nonRetryable, true);
  const [d] = err.details as PlatformFailureDetails[];
  assert.equal(d!.httpStatus, 400);
  assert.equal(d!.code, 'INVALID_ARGUMENT');
  assert.deepEqual(
    (d!.details as Array<{ field: string; rule: string }>).map((v) => [v.field, v.rule]),
    [
      ['requestDetails[0].senderIdDetails.senderId', 'maxLength'],
      ['requestDetails[0].additionalDetails.companyName', 'required'],
    ],
  );
  assert.equal(stub.registrations.length, 0);

  // The pre-check says the same before anything is sent, and lists attachments and templates.
  const check = await stub.activities.checkSenderIdRegistration({
    policyId: 'pol-au-alpha',
    requestDetails: [{ senderIdDetails: [{ senderId: 'MUCH_TOO_LONG_ID' }] }],
  });
  assert.deepEqual(
    check.violations.map((v) => [v.field, v.rule]),
    [
      ['requestDetails[0].senderIdDetails.senderId', 'maxLength'],
      ['requestDetails[0].additionalDetails.companyName', 'required'],
    ],
  );
  assert.deepEqual(
    check.mandatoryAttachments.map((a) => a.id),
    ['att-loa'],
  );
  assert.deepEqual(
    check.templates.map((a) => a.id),
    ['att-loa'],
  );

  // An unknown policy: 404, non-retryable.
  const nf = await stub.activities.getSenderIdPolicyRequirements({ policyId: 'nope' }).catch((e: unknown) => e);
  assert.ok(nf instanceof ApplicationFailure);
  assert.equal(nf.type, 'PlatformNotFoundError');
  assert.equal(nf.nonRetryable, true);
});

test('update after a lost answer: the 409 of the repeat is recognised when the registration holds the changes', async (t) => {
  const stub = await startSenderIdStub(t);
  const r = await stub.activities.createSenderIdRegistration({ registrationKey: 'u1', request: request('ACME') });
  stub.registrations[0]!.status = 'PENDING';
  const first = await stub.activities.updateSenderIdRegistration({ registrationId: r.id, changes: { notificationContacts: ['ops@acme.test'] } });
  assert.equal(first.updated, true);
  assert.equal(first.status, 'IN_PROGRESS');
  const repeat = await stub.activities.updateSenderIdRegistration({ registrationId: r.id, changes: { notificationContacts: ['ops@acme.test'] } });
  assert.equal(repeat.updated, false);
  const other = await stub.activities
    .updateSenderIdRegistration({ registrationId: r.id, changes: { notificationContacts: ['other@acme.test'] } })
    .catch((e: unknown) => e);
  assert.ok(other instanceof ApplicationFailure);
  assert.equal(other.type, 'PlatformConflictError');
  assert.equal(other.nonRetryable, true);
});

test("delete after a lost answer: the repeat's 404 means deleted already", async (t) => {
  const stub = await startSenderIdStub(t);
  const r = await stub.activities.createSenderIdRegistration({ registrationKey: 'd1', request: request('ACME') });
  const stubLost = await startSenderIdStub(t, { loseAnswer: [`DELETE registrations/${r.id}`] });
  const r2 = await stubLost.activities.createSenderIdRegistration({ registrationKey: 'd1', request: request('ACME') });
  const { result, failures } = await withRetries(() => stubLost.activities.deleteSenderIdRegistration({ registrationId: r2.id }));
  assert.equal(failures.length, 1);
  assert.deepEqual(result, { deleted: false });
  assert.equal(stubLost.registrations.length, 0);
  assert.deepEqual(await stub.activities.deleteSenderIdRegistration({ registrationId: r.id }), { deleted: true });
});
