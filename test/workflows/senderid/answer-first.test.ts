// Sender ID callbacks end to end while the platform's reads fail: the sandbox's own callbacks for a registration
// arrive while every GET of it answers 503. relayflow answers each one 200 (before this, the intake read the
// registration first and answered 503), and the process still ends up in the registration's state once the
// platform answers again: every callback the sandbox sent reached it once, none twice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { brandRegistration, callbackAnswers, sentCallbacks, setReviewer, startRegistration, waitForView, wireSenderId } from '../../helpers/senderid.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PENDING_MESSAGE = 'Please confirm the company website.';

describe('sender ID: callbacks answered while the registration cannot be read', () => {
  // Callbacks only: no periodic read could hide a lost one.
  const h = useHarness({ env: { RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '3600000' } }, async (h) => wireSenderId(h));
  const faults = async (method: 'GET' | 'POST' | 'DELETE', body?: unknown) => {
    const res = await fetch(`${h.sandbox.url}/_sandbox/faults`, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    assert.ok(res.ok);
    return (await res.json()) as { faults?: { remaining: number }[] };
  };

  test('IN_QUEUE → IN_PROGRESS → PENDING with the reads failing: every callback answered 200, the process PENDING, each callback received once', async () => {
    // PENDING waits for the customer: the process keeps running, so every callback must reach it.
    await setReviewer(h, { outcome: 'pending', stepMs: 300, pendingApproval: 'never', stopForAttachments: 'never', pendingMessage: PENDING_MESSAGE });
    // The first three reads of a registration by ID fail (a create lists registrations, it reads none by ID).
    await faults('POST', { area: 'senderid', method: 'GET', pathContains: '/registrations/', status: 503, count: 3 });
    try {
      const id = await startRegistration(h, brandRegistration(uniqueName('first')));
      const v = await waitForView(h, id, (x) => x.state === 'PENDING', 'PENDING', 45_000);
      assert.equal(v.details.platformState, 'PENDING');
      assert.ok(
        v.details.logs.some((l) => l.message === PENDING_MESSAGE),
        JSON.stringify(v.details.logs),
      );
      assert.deepEqual((await faults('GET')).faults, [], 'the reads did fail: every injected failure was used');

      const registrationId = v.details.registrationId!;
      const sent = new Set((await sentCallbacks(h, registrationId)).map((c) => c.event.eventId));
      assert.ok(sent.size >= 2, `the sandbox sent IN_PROGRESS and PENDING (${sent.size})`);
      const answers = await callbackAnswers(h, registrationId);
      assert.ok(answers.length >= sent.size && answers.every((s) => s === 200), JSON.stringify(answers));
      // Nothing lost, nothing twice: the process counted each callback the sandbox sent exactly once.
      const settled = await waitForView(h, id, (x) => x.details.callbacks === sent.size, `${sent.size} callbacks`);
      assert.equal(settled.details.duplicateCallbacks, 0);
      await sleep(500);
      assert.equal((await waitForView(h, id, () => true, 'read')).details.callbacks, sent.size);
    } finally {
      await faults('DELETE');
    }
  });
});
