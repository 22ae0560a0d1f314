// The sender ID callback intake answers first and works after: a signed callback is answered 200 once it is in
// Temporal, whatever the platform answers. A registration's process links itself to it, so its callbacks are one
// signal each to that process; without a link (a callback before it, a process that has ended) the callback goes
// to the registration's relay, which reads whose registration it is, retrying while the read fails, hands the
// callback on and records the link. A repeated delivery is dropped by the intake; a callback for a registration the
// platform does not know is relayed nowhere and adopts nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WorkflowNotFoundError } from '@temporalio/client';
import { senderIdCallbackRelayId } from '../../../processes/senderid/senderid-registration/contract.js';
import { ResourceLinkStore } from '../../../store/index.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { brandRegistration, postCallback, senderIdView, setReviewer, startRegistration, waitForView, wireSenderId } from '../../helpers/senderid.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sandboxFaults = async (h: Harness, method: 'POST' | 'DELETE', body?: unknown) => {
  const res = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
    method,
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  assert.ok(res.ok, await res.text());
};

async function relayOf(h: Harness, registrationId: string) {
  return h.client.workflow.getHandle(senderIdCallbackRelayId('sandbox-project', registrationId));
}

/** Waits until the relay's current run is closed; its status and result. */
async function relayClosed(h: Harness, registrationId: string, timeoutMs = 20_000) {
  const handle = await relayOf(h, registrationId);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') return { status: d.status.name, result: (await handle.result()) as { relayed: number; outcomes: string[] } };
    assert.ok(Date.now() < deadline, `relay of ${registrationId} still running`);
    await sleep(100);
  }
}

describe('sender ID callback intake: answer first, work after', () => {
  const h = useHarness({ env: { RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '3600000' } }, async (h) => wireSenderId(h));
  const secret = () => h.config.api.senderIdCallbackSecrets[0]!;

  /** A registration the reviewer leaves IN_QUEUE: only the test's callbacks reach its process. */
  async function quietRegistration(): Promise<{ id: string; registrationId: string }> {
    await setReviewer(h, { outcome: 'approve', stepMs: 600_000, pendingApproval: 'never' });
    const id = await startRegistration(h, brandRegistration(uniqueName('first')));
    const v = await waitForView(h, id, (x) => x.state === 'IN_QUEUE' && Boolean(x.details.registrationId), 'IN_QUEUE');
    return { id, registrationId: v.details.registrationId! };
  }

  const links = () => new ResourceLinkStore(h.store.sql);
  const relayRuns = async (registrationId: string) =>
    (await relayOf(h, registrationId)).describe().then(
      (d) => d.runId,
      (err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      },
    );

  test('a linked registration: each callback is one signal to its process, no relay', async () => {
    const { id, registrationId } = await quietRegistration();
    const relayId = senderIdCallbackRelayId('sandbox-project', registrationId);
    assert.deepEqual(
      (await links().owners(relayId)).map((l) => l.processId),
      [id],
      'the process linked its registration when it created it',
    );
    const before = (await senderIdView(h, id)).details;
    const body = { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId, registrationState: 'IN_PROGRESS' };
    assert.equal((await postCallback(h, body, secret())).statusCode, 200);
    await waitForView(h, id, (x) => x.details.callbacks === before.callbacks + 1, 'the callback received');
    assert.equal(await relayRuns(registrationId), undefined, 'no relay');
  });

  test('a registration whose process has ended: the callback goes to the relay and the stale link is dropped', async () => {
    const { id, registrationId } = await quietRegistration();
    await h.client.workflow.getHandle(id).terminate('the process ended');
    const res = await postCallback(h, { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId }, secret());
    assert.equal(res.statusCode, 200, res.body);
    const closed = await relayClosed(h, registrationId);
    assert.deepEqual(closed.result.outcomes, ['process-ended']);
    assert.deepEqual(await links().owners(senderIdCallbackRelayId('sandbox-project', registrationId)), []);
  });

  test('no link and every read of the registration fails: 200 at once, the relay retries the read, the process gets the callback once the platform answers and the link is recorded', async () => {
    const { id, registrationId } = await quietRegistration();
    // As if the callback came before the process linked its registration.
    const relayId = senderIdCallbackRelayId('sandbox-project', registrationId);
    for (const l of await links().owners(relayId)) assert.ok(await links().unlink(relayId, l));
    const before = (await senderIdView(h, id)).details;
    await sandboxFaults(h, 'POST', { area: 'senderid', method: 'GET', pathContains: `/registrations/${registrationId}`, status: 503, count: 1000 });
    try {
      const body = { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId, registrationState: 'IN_PROGRESS' };
      const started = Date.now();
      const res = await postCallback(h, body, secret());
      assert.equal(res.statusCode, 200, res.body);
      assert.ok(Date.now() - started < 2_000, `answered in ${Date.now() - started} ms`);

      // The read is failing and being retried in the relay; the process has not been told yet.
      const relay = await relayOf(h, registrationId);
      const deadline = Date.now() + 10_000;
      let attempt = 0;
      while (attempt < 2 && Date.now() < deadline) {
        await sleep(200);
        attempt = (await relay.describe()).raw.pendingActivities?.[0]?.attempt ?? 0;
      }
      assert.ok(attempt >= 2, `the relay's read was retried (attempt ${attempt})`);
      assert.equal((await senderIdView(h, id)).details.callbacks, before.callbacks);
    } finally {
      await sandboxFaults(h, 'DELETE');
    }
    const v = await waitForView(h, id, (x) => x.details.callbacks === before.callbacks + 1, 'the callback received', 20_000);
    assert.equal(v.details.duplicateCallbacks, before.duplicateCallbacks);
    assert.equal(v.state, 'IN_QUEUE', 'read from the platform: the callback is only a hint');
    const closed = await relayClosed(h, registrationId);
    assert.equal(closed.status, 'COMPLETED');
    assert.deepEqual(closed.result.outcomes, ['signalled']);
    assert.deepEqual(
      (await links().owners(relayId)).map((l) => l.processId),
      [id],
      'the relay recorded the link',
    );
    const runId = await relayRuns(registrationId);
    const next = { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId };
    assert.equal((await postCallback(h, next, secret())).statusCode, 200);
    await waitForView(h, id, (x) => x.details.callbacks === before.callbacks + 2, 'the next callback, straight to the process');
    assert.equal(await relayRuns(registrationId), runId, 'no new relay run');
  });

  test('a repeated delivery is answered 200 and dropped by the intake (same eventId): the process has it once', async () => {
    const { id, registrationId } = await quietRegistration();
    const before = (await senderIdView(h, id)).details;
    const body = { eventId: uniqueName('evt'), eventType: 'REGISTRATION_STATE_CHANGED', registrationId, registrationState: 'IN_PROGRESS' };
    assert.equal((await postCallback(h, body, secret())).statusCode, 200);
    await waitForView(h, id, (x) => x.details.callbacks === before.callbacks + 1, 'the first delivery');
    const repeat = await postCallback(h, body, secret());
    assert.equal(repeat.statusCode, 200);
    assert.deepEqual(repeat.json(), { duplicate: true });
    // A later callback shows the process got nothing in between.
    const next = { ...body, eventId: uniqueName('evt') };
    assert.equal((await postCallback(h, next, secret())).statusCode, 200);
    const v = await waitForView(h, id, (x) => x.details.callbacks === before.callbacks + 2, 'the next delivery');
    assert.equal(v.details.duplicateCallbacks, before.duplicateCallbacks, 'no repeat reached the process');
  });

  test('a registration the platform does not know: 200, relayed nowhere, nothing adopted', async () => {
    const registrationId = uniqueName('reg-nowhere');
    const res = await postCallback(h, { eventId: uniqueName('evt'), registrationId, registrationState: 'APPROVED' }, secret());
    assert.equal(res.statusCode, 200, res.body);
    const closed = await relayClosed(h, registrationId);
    assert.equal(closed.status, 'COMPLETED');
    assert.deepEqual(closed.result.outcomes, ['registration-gone']);
    const adopted = await h.api({
      method: 'GET',
      url: `/v1/senderid/registrations/${encodeURIComponent(`senderid-registration:sandbox-project:reg-${registrationId}`)}`,
    });
    assert.equal(adopted.statusCode, 404, 'nothing adopted');
  });
});
