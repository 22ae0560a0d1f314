// RCS sender launch and CHATA / CHATB sender approval through the API, on the real Temporal dev server
// against the sandbox: launch with a test number waited out, per-country rejection and relaunch, CHATA
// standard and embedded, a terminal errorCode, a retryable one waited out, CHATB with its category, and
// (with a short poll interval) a lost webhook, an overdue review and a worker restart.
import { subjectHasher } from '../../../common/subject-hash.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import {
  freshMobile,
  rcsBody,
  reviewerEvent,
  sandboxEvents,
  setReviewer,
  setWebhookFaults,
  start,
  stateChanges,
  update,
  view,
  waitUntil,
  type View,
} from '../../helpers/provisioning.js';

const fast = {
  rcs: { outcome: 'launch', delayMs: 400 },
  chataSenders: { outcome: 'activate', delayMs: 300 },
  chatbSenders: { outcome: 'activate', delayMs: 300 },
} as const;
const completed = (v: View) => v.execution.status === 'COMPLETED';
/** A CHATA or CHATB sender's process does not end at ACTIVE: it goes on watching the live sender. */
const watched = (v: View) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined;

describe('sender approval (webhooks only: polling every minute)', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' }, sandbox: { provisioningReviewer: fast } });

  test('RCS: created, questionnaire answered, launched; the test number refused before the launch is added after it', async () => {
    await setReviewer(h, fast);
    const testNumber = freshMobile();
    const id = await start(h, '/v1/senders/rcs', rcsBody(uniqueName('Brand'), { testNumbers: [{ phoneNumber: testNumber, features: ['ACTION_COMPOSE'] }] }));
    assert.match(id, /^rcs-sender:sandbox-project:Brand-/);
    const done = await waitUntil(h, id, completed, 'completed');
    assert.equal(done.state, 'LAUNCHED');
    assert.deepEqual(stateChanges(done), ['CREATING', 'DRAFT', 'IN_REVIEW', 'LAUNCHED']);
    const reasons = done.history.map((s) => s.reason ?? '').join('|');
    assert.match(reasons, /questionnaire answered for MULTIUSE in FR/);
    assert.match(reasons, /test number not allowed before the launch/);
    assert.match(reasons, /launched \(contact by e-mail\)/);
    const numbers = done.details.testNumbers as { status: string; note: string }[];
    assert.equal(numbers[0]!.status, 'ADDED');
    const country = (done.details.countryStatus as Record<string, { status: string; operators: Record<string, string> }>).FR!;
    assert.equal(country.status, 'LAUNCHED');
    assert.ok(Object.values(country.operators).length > 0 && Object.values(country.operators).every((o) => o === 'LAUNCHED'));
    const got = await h.api({ method: 'GET', url: `/v1/senders/${encodeURIComponent(id)}` });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().kind, 'rcs-sender');
    const listed = await h.api({ method: 'GET', url: '/v1/senders/rcs?state=LAUNCHED' });
    assert.ok(
      listed.json().processes.some((p: { processId: string }) => p.processId === id),
      'listed by kind and state',
    );
    const sender = await createPlatformClients(h.config.platform).provisioning.rcs.get(done.details.senderId as string);
    assert.deepEqual(
      sender.testNumbers.map((t) => t.phoneNumber),
      [testNumber],
      'the number is on the platform',
    );
    // The review's webhooks each end a wait, none cancels its timer: one timer served every wait (processes/shared/workflow/wake-timer.ts).
    const events = (await h.client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const count = (has: (e: (typeof events)[number]) => unknown) => events.filter(has).length;
    assert.ok(count((e) => e.workflowExecutionSignaledEventAttributes) >= 2, 'webhooks came while it waited');
    assert.ok(count((e) => e.timerStartedEventAttributes) <= 1, 'one timer at most');
    assert.equal(
      count((e) => e.timerCanceledEventAttributes),
      0,
      'no timer cancelled',
    );
  });

  test('RCS: a country rejected leaves the sender PARTIALLY_LAUNCHED; a relaunch (same Idempotency-Key twice) launches it', async () => {
    await setReviewer(h, { rcs: { outcome: 'launch', delayMs: 300, rejectCountries: ['DE'], comment: 'Brand not verified in DE' } });
    const id = await start(h, '/v1/senders/rcs', rcsBody(uniqueName('Partial'), { countries: ['FR', 'DE'] }));
    // The per-country view completes with the events (or the read) that follow the sender's decision.
    const partial = await waitUntil(
      h,
      id,
      (v) => v.state === 'PARTIALLY_LAUNCHED' && (v.details.countryStatus as Record<string, { status: string }>).DE?.status !== 'PENDING',
      'partially launched',
    );
    const cs = partial.details.countryStatus as Record<string, { status: string }>;
    assert.equal(cs.DE!.status, 'REJECTED');
    assert.equal(cs.FR!.status, 'LAUNCHED');
    assert.ok(partial.history.some((s) => /rejected in DE: Brand not verified in DE/.test(s.reason ?? '')));
    assert.ok(
      partial.details.comments.some((c) => c.text === 'Brand not verified in DE'),
      'the reviewer comment is kept',
    );
    await setReviewer(h, fast);
    const first = await update(h, id, 'senders', 'relaunch', { contact: { phoneNumber: '+33612345678' } }, 'relaunch-1');
    assert.equal(first.statusCode, 200, first.body);
    // The answer is the state once the relaunch is applied: IN_REVIEW, or already LAUNCHED when the
    // reviewer's events reached the process before the relaunch call's reply did (a loaded machine).
    assert.equal(first.json().accepted, true, first.body);
    assert.ok(['IN_REVIEW', 'LAUNCHED'].includes(first.json().state), first.body);
    assert.deepEqual((await update(h, id, 'senders', 'relaunch', {}, 'relaunch-1')).json(), first.json(), 'answered from memory');
    const done = await waitUntil(h, id, completed, 'completed');
    assert.equal(done.state, 'LAUNCHED');
    assert.deepEqual(stateChanges(done).slice(-3), ['PARTIALLY_LAUNCHED', 'IN_REVIEW', 'LAUNCHED']);
    assert.equal(done.details.relaunches, 1);
    assert.equal((await update(h, id, 'senders', 'relaunch', {}, 'relaunch-2')).statusCode, 409, 'nothing to relaunch once it ended');
  });

  test('CHATA (standard): PENDING to ACTIVE from CHATA_WABA_ACCOUNT_CHANGED; the business key is the keyed hash of the number', async () => {
    await setReviewer(h, fast);
    const phoneNumber = freshMobile();
    const id = await start(h, '/v1/senders/chata', { phoneNumber, displayName: 'Shop support', vertical: 'OTHER' });
    assert.equal(id, `chata-sender:sandbox-project:${subjectHasher(h.config.codecKeys)(phoneNumber)}`);
    assert.ok(!id.includes(phoneNumber.slice(1)), 'the number is not in the (unencrypted) workflow ID');
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched');
    assert.deepEqual(stateChanges(done), ['CREATING', 'PENDING', 'ACTIVE']);
    assert.equal(done.details.maxTps, 80);
    assert.ok(done.details.events.some((e) => e.trigger === 'CHATA_WABA_ACCOUNT_CHANGED' && e.applied));
  });

  test('CHATA (embedded sign-up): business account and phoneNumberId', async () => {
    await setReviewer(h, fast);
    const phoneNumberId = String(Date.now());
    const id = await start(h, '/v1/senders/chata/embedded', { businessAccountId: 'waba-123', phoneNumberId });
    assert.equal(id, `chata-sender:sandbox-project:pnid-${phoneNumberId}`);
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched');
    assert.equal(done.state, 'ACTIVE');
    assert.equal(done.details.mode, 'embedded');
  });

  test('CHATA: an errorCode no retry can fix ends the attempt FAILED with that code', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'DUPLICATES_ON_SENDER_PHONE_NUMBER', delayMs: 300 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Duplicate' });
    const failed = await waitUntil(h, id, (v) => v.execution.status === 'FAILED', 'failed');
    assert.equal(failed.state, 'FAILED');
    assert.equal(failed.details.errorCode, 'DUPLICATES_ON_SENDER_PHONE_NUMBER');
    assert.equal(failed.details.errorTerminal, true);
    assert.equal(failed.details.platformState, 'ERROR');
    assert.match(failed.history.at(-1)!.reason!, /DUPLICATES_ON_SENDER_PHONE_NUMBER.*no retry can fix it/);
    assert.match(failed.failure ?? '', /DUPLICATES_ON_SENDER_PHONE_NUMBER/);
  });

  test('CHATA: a retryable errorCode is reported and waited out until the platform activates the sender', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'CANNOT_GET_WABA_DETAILS', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Flaky' });
    const erred = (await h.waitForState(id, 'ERROR')) as unknown as View;
    assert.equal(erred.details.errorCode, 'CANNOT_GET_WABA_DETAILS');
    assert.equal(erred.execution.status, 'RUNNING');
    await reviewerEvent(h, { resourceType: 'SENDER', resourceId: erred.details.senderId, trigger: 'CHATA_WABA_ACCOUNT_CHANGED', details: { state: 'ACTIVE' } });
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched');
    assert.equal(done.state, 'ACTIVE');
  });

  test('CHATB: activation reported by a comment with state ACTIVE; a rejection fails the attempt with the comment', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 300, comment: 'Welcome aboard' } });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('shop'), categoryCode: 'RETAIL', subcategoryCode: 'FASHION' });
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched');
    assert.deepEqual(stateChanges(done), ['CREATING', 'IN_REVIEW', 'ACTIVE']);
    assert.ok(done.details.comments.some((c) => c.text === 'Welcome aboard'));
    await setReviewer(h, { chatbSenders: { outcome: 'reject', delayMs: 200, comment: 'Category does not match' } });
    const rid = await start(h, '/v1/senders/chatb', { displayName: uniqueName('bank'), categoryCode: 'FINANCE' });
    const failed = await waitUntil(h, rid, (v) => v.execution.status === 'FAILED', 'failed');
    assert.equal(failed.state, 'FAILED');
    assert.equal(failed.details.platformState, 'REJECTED');
    assert.match(failed.failure ?? '', /Category does not match/);
  });
});

describe('sender approval with lost webhooks, deadlines and restarts (polling every second)', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1000' }, sandbox: { provisioningReviewer: fast } });

  test('CHATB: the activation webhook dropped, the poll finds the sender ACTIVE', async () => {
    await setWebhookFaults(h, { drop: 1 });
    const id = await start(h, '/v1/senders/chatb', { displayName: uniqueName('dropped'), categoryCode: 'TRAVEL' });
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched', 10_000);
    assert.equal(done.state, 'ACTIVE');
    assert.ok(done.details.polls >= 1);
    assert.match(done.history.at(-1)!.reason!, /read from the platform/);
    assert.ok((await sandboxEvents(h, done.details.senderId as string)).some((r) => r.delivery === 'dropped'));
  });

  test('RCS: a slow review is reported overdue and still followed to the launch', async () => {
    // The review lasts 6 s so the overdue note (after 1 s) is read while still IN_REVIEW on a loaded machine.
    await setReviewer(h, { rcs: { outcome: 'launch', delayMs: 6_000 } });
    const id = await start(h, '/v1/senders/rcs', rcsBody(uniqueName('Slow'), { overdueAfterSeconds: 1 }));
    const overdue = await waitUntil(h, id, (v) => v.details.overdue === true, 'overdue', 10_000);
    assert.equal(overdue.state, 'IN_REVIEW');
    assert.match(overdue.history.at(-1)!.reason!, /^overdue/);
    const done = await waitUntil(h, id, completed, 'completed', 20_000);
    assert.equal(done.state, 'LAUNCHED');
  });

  test('CHATA: the worker restarted while the sender is PENDING; the process reaches ACTIVE once', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 1_500 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Restart' });
    await h.waitForState(id, 'PENDING');
    await h.stopWorker();
    try {
      assert.equal((await view(h, id)).state, 'PENDING');
      await new Promise((r) => setTimeout(r, 2_000));
    } finally {
      await h.startWorker();
    }
    const done = await waitUntil(h, id, watched, 'ACTIVE and watched');
    assert.deepEqual(stateChanges(done), ['CREATING', 'PENDING', 'ACTIVE']);
    assert.equal(done.history.filter((s) => s.state === 'ACTIVE' && /^the sender is active/.test(s.reason ?? '')).length, 1);
  });
});
