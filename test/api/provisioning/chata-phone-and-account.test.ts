// A CHATA sender's phone verification and its account's ban, end to end through the API against the sandbox on the
// real Temporal dev server:
// - a CHATA sender blocked on phone verification (NO_VERIFIED_PHONE_NUMBER) waits for the caller's code, refuses a
//   wrong one (422 wrong_otp, the process keeps waiting, a repeat of the same operation answers the same), goes on
//   with the right one to ACTIVE; the wait's deadline ends a process nobody answers;
// - the business account banned on the platform moves a sender's and a template's processes to ACCOUNT_BANNED (the
//   process list says why), and back when the ban is lifted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { pollUntil } from '../../helpers/deadline.js';
import { freshMobile, setReviewer, start, stateChanges, templateBody, update, view, waitUntil } from '../../helpers/provisioning.js';

async function sandbox(h: Harness, method: 'GET' | 'PUT', path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The code the sandbox "sent" to the sender's number. */
async function sentCode(h: Harness, senderId: string): Promise<string> {
  const res = await sandbox(h, 'GET', `/chata-senders/${senderId}/verification`);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  return res.json.code as string;
}

interface Row {
  processId: string;
  state: string;
  reason?: string;
  attention?: string;
}

/** The process's row in GET /v1/processes once it shows `state` (the list reads Temporal's visibility, which lags). */
async function listedAs(h: Harness, processId: string, state: string): Promise<Row> {
  return pollUntil(
    async () => {
      const res = await h.api({ method: 'GET', url: `/v1/processes?q=${encodeURIComponent(processId)}` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { processes: Row[] }).processes.find((r) => r.processId === processId && r.state === state);
    },
    `${processId} listed as ${state}`,
    20_000,
    200,
  );
}

describe('CHATA sender phone verification and account ban', () => {
  // Polling only once a minute: the webhooks carry every change, and the verification deadline is a timer of its own.
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });

  test('blocked on phone verification: a wrong code is refused and the process keeps waiting; the right one resumes it to ACTIVE', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Verify me' });
    const waiting = await waitUntil(
      h,
      id,
      (v) => v.state === 'WAITING_FOR_CALLER' && Boolean((v.details.phoneVerification as { requestedAt?: string })?.requestedAt),
      'code requested',
    );
    assert.equal(waiting.execution.status, 'RUNNING');
    assert.equal(waiting.details.errorCode, 'NO_VERIFIED_PHONE_NUMBER');
    assert.equal(waiting.details.errorTerminal, false);
    assert.match(waiting.history.map((s) => s.reason).join('|'), /phone verification: NO_VERIFIED_PHONE_NUMBER.*verification code sent to the number by SMS/);
    const row = await listedAs(h, id, 'WAITING_FOR_CALLER');
    assert.equal(row.attention, 'waiting-on-person');
    assert.match(row.reason ?? '', /verification code sent/);

    const senderId = waiting.details.senderId as string;
    const code = await sentCode(h, senderId);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    const malformed = await update(h, id, 'senders', 'verify-phone', { code: '12 34' });
    assert.equal(malformed.statusCode, 400, malformed.body);
    assert.match(malformed.body, /body\.code/);

    const refused = await update(h, id, 'senders', 'verify-phone', { code: wrong }, 'wrong-1');
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().error.code, 'wrong_otp');
    assert.match(refused.json().error.message, /wrong code \(wrong_otp\)/);
    const again = await update(h, id, 'senders', 'verify-phone', { code: wrong }, 'wrong-1');
    assert.equal(again.statusCode, 422, 'the same operation answers the same');
    const still = await view(h, id);
    assert.equal(still.state, 'WAITING_FOR_CALLER');
    assert.equal((still.details.phoneVerification as { wrongCodes: number }).wrongCodes, 1, 'the repeat was not sent again');
    assert.match(still.history.at(-1)!.reason!, /wrong code \(wrong_otp\).*still waiting/);

    // The verified number goes back to review; this time the reviewer activates it.
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 200 } });
    const ok = await update(h, id, 'senders', 'verify-phone', { code }, 'right-1');
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().accepted, true);
    // Live, it is watched (the run goes on).
    const done = await waitUntil(h, id, (v) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined, 'ACTIVE and watched');
    assert.deepEqual(stateChanges(done), ['CREATING', 'PENDING', 'WAITING_FOR_CALLER', 'PENDING', 'ACTIVE']);
    assert.ok((done.details.phoneVerification as { verifiedAt?: string }).verifiedAt);
    const late = await update(h, id, 'senders', 'verify-phone', { code }, 'late-1');
    assert.equal(late.statusCode, 409, 'nothing waits for a code any more');
  });

  test('nobody submits the code: the process ends FAILED at the deadline, saying so', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 200 } });
    const id = await start(h, '/v1/senders/chata', {
      phoneNumber: freshMobile(),
      displayName: 'Silent',
      phoneVerification: { method: 'VOICE', timeoutSeconds: 10 },
    });
    const failed = await waitUntil(h, id, (v) => v.execution.status === 'FAILED', 'failed at the deadline', 30_000);
    assert.equal(failed.state, 'FAILED');
    assert.match(failed.history.map((s) => s.reason).join('|'), /sent to the number by VOICE/);
    assert.match(failed.history.at(-1)!.reason!, /phone verification not completed: no right code submitted by .* \(10 s after the wait began; 0 wrong\)/);
    assert.match(failed.failure ?? '', /phone verification not completed/);
  });

  test('an account ban seen on a sender and a template, then lifted', async () => {
    // The sender stays under review; the template is approved.
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 600_000 }, templates: { outcome: 'approve', delayMs: 200 } });
    const sender = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Banned brand' });
    const template = await start(h, '/v1/templates/chata', templateBody(uniqueName('ban').replace(/-/g, '_')));
    await waitUntil(h, sender, (v) => v.state === 'PENDING' && Boolean((v.details.account as { id?: string })?.id), 'sender pending, account read');
    await waitUntil(h, template, (v) => v.state === 'APPROVED' && Boolean((v.details.account as { id?: string })?.id), 'template approved, account read');

    const projectId = h.config.platform.credentials.projectId;
    const ban = await sandbox(h, 'PUT', `/chata-account/${projectId}/ban`, { banState: 'DISABLE' });
    assert.equal(ban.status, 200, JSON.stringify(ban.json));
    for (const id of [sender, template]) {
      const banned = await waitUntil(h, id, (v) => v.state === 'ACCOUNT_BANNED', 'banned');
      assert.match(banned.history.at(-1)!.reason!, /account BANNED \(ban state DISABLE since .*; read after CHATA_WABA_ACCOUNT_CHANGED\)/);
      assert.equal((banned.details.account as { banState: string }).banState, 'DISABLE');
      const row = await listedAs(h, id, 'ACCOUNT_BANNED');
      assert.match(row.reason ?? '', /account BANNED/);
      assert.equal(row.attention, 'waiting-on-person');
    }
    const resubmit = await update(h, template, 'templates', 'resubmit', { category: 'UTILITY' });
    assert.equal(resubmit.statusCode, 409, 'a banned template is not edited');

    const bad = await sandbox(h, 'PUT', `/chata-account/${projectId}/ban`, { banState: 'LIFTED' });
    assert.equal(bad.status, 400, 'the control route names the valid ban states');

    const lift = await sandbox(h, 'PUT', `/chata-account/${projectId}/ban`, { banState: 'REINSTATE' });
    assert.equal(lift.status, 200);
    const back = await waitUntil(h, sender, (v) => v.state === 'PENDING' && stateChanges(v).includes('ACCOUNT_BANNED'), 'sender back under review');
    assert.match(back.history.map((s) => s.reason).join('|'), /account ban lifted \(ban state REINSTATE.*back to PENDING/);
    const approved = await waitUntil(h, template, (v) => v.state === 'APPROVED' && stateChanges(v).includes('ACCOUNT_BANNED'), 'template back to APPROVED');
    assert.deepEqual(stateChanges(approved).slice(-3), ['APPROVED', 'ACCOUNT_BANNED', 'APPROVED']);
    assert.match((await listedAs(h, template, 'APPROVED')).reason ?? '', /ban lifted/);

    await update(h, sender, 'senders', 'stop', {});
    await update(h, template, 'templates', 'stop', {});
  });
});
