// CHATA sender approval with saveDraftOnFailure: the platform keeps a failed sender as a DRAFT and the
// contract has no call that submits it, so the process ends DRAFT_SAVED with the platform's errorCode and
// what to do, instead of polling the draft forever. The same request after the draft was submitted on the
// platform starts a new run that follows the existing sender to ACTIVE, without creating a second one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, type Harness } from '../../helpers/harness.js';
import { freshMobile, reviewerEvent, sandboxRequests, setReviewer, start, stateChanges, view, waitUntil, type View } from '../../helpers/provisioning.js';

const completed = (v: View) => v.execution.status === 'COMPLETED';
const runOf = (v: View) => (v.execution as { runId?: string }).runId;
const chataCreates = async (h: Harness) => (await sandboxRequests(h, 'POST', '/chata/senders')).filter((r) => r.status === 200).length;

describe('CHATA sender approval: a sender saved as a draft', () => {
  // Polling every second: on the old code the process kept reading the draft and never ended.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1000' } });

  test('a failure the platform saved as a DRAFT ends the process DRAFT_SAVED with the errorCode and the next step', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'CANNOT_GET_WABA_DETAILS', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Drafty', saveDraftOnFailure: true });
    const done = await waitUntil(h, id, completed, 'completed', 15_000);
    assert.equal(done.state, 'DRAFT_SAVED');
    assert.deepEqual(stateChanges(done), ['CREATING', 'PENDING', 'DRAFT_SAVED']);
    assert.equal(done.details.platformState, 'DRAFT');
    assert.equal(done.details.errorCode, 'CANNOT_GET_WABA_DETAILS');
    assert.match(done.history.at(-1)!.reason!, /CANNOT_GET_WABA_DETAILS.*saved the sender as a DRAFT.*cannot submit/);
    assert.match(
      String(done.details.nextStep),
      /fix the cause \(CANNOT_GET_WABA_DETAILS.*submit the draft in the platform's dashboard and send the same start request again/,
    );
    const result = (await h.client.workflow.getHandle(id).result()) as { state: string; errorCode?: string; nextStep?: string };
    assert.equal(result.state, 'DRAFT_SAVED');
    assert.equal(result.errorCode, 'CANNOT_GET_WABA_DETAILS');
    assert.ok(result.nextStep);
    const stop = await h.api({ method: 'POST', url: `/v1/senders/${encodeURIComponent(id)}/stop`, payload: {} });
    assert.equal(stop.statusCode, 409, 'nothing left to stop');
  });

  test('a terminal errorCode on a saved draft ends DRAFT_SAVED too (the draft exists), marked terminal', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Unverified draft', saveDraftOnFailure: true });
    const done = await waitUntil(h, id, completed, 'completed', 15_000);
    assert.equal(done.state, 'DRAFT_SAVED');
    assert.equal(done.details.errorTerminal, true);
    assert.match(String(done.details.nextStep), /the phone number must be verified first/);
  });

  test('the same request after DRAFT_SAVED: a new run; it ends again while the sender is a draft, and follows it once submitted on the platform', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'UNKNOWN_ERROR', delayMs: 200 } });
    const body = { phoneNumber: freshMobile(), displayName: 'Resumed', saveDraftOnFailure: true };
    const id = await start(h, '/v1/senders/chata', body);
    const first = await waitUntil(h, id, completed, 'completed', 15_000);
    assert.equal(first.state, 'DRAFT_SAVED');
    const senderId = first.details.senderId as string;
    const creates = await chataCreates(h);

    assert.equal(await start(h, '/v1/senders/chata', body), id, 'a new run under the same key (202)');
    const again = await waitUntil(h, id, (v) => completed(v) && runOf(v) !== runOf(first), 'second run completed', 15_000);
    assert.equal(again.state, 'DRAFT_SAVED', 'still a draft: nothing to follow');
    assert.equal(again.details.senderId, senderId, 'the existing draft, not a new sender');

    // Someone submits the draft in the platform's dashboard (the sandbox reviewer plays it).
    await reviewerEvent(h, { resourceType: 'SENDER', resourceId: senderId, trigger: 'CHATA_WABA_ACCOUNT_CHANGED', details: { state: 'PENDING' } });
    assert.equal(await start(h, '/v1/senders/chata', body), id);
    const pending = await waitUntil(h, id, (v) => v.execution.status === 'RUNNING' && v.state === 'PENDING', 'following the submitted sender', 15_000);
    assert.equal(pending.details.senderId, senderId);
    await reviewerEvent(h, { resourceType: 'SENDER', resourceId: senderId, trigger: 'CHATA_WABA_ACCOUNT_CHANGED', details: { state: 'ACTIVE' } });
    // Live, it is watched (the run goes on).
    const active = await waitUntil(h, id, (v) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined, 'ACTIVE and watched', 15_000);
    assert.equal(active.details.nextStep, undefined);
    assert.equal(await chataCreates(h), creates, 'no second sender created');
    assert.equal((await view(h, id)).details.senderId, senderId);
  });
});
