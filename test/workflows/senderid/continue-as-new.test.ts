// A long wait continues as new and carries everything: the history of states, the registration, the seen
// callbacks and the answers to repeated operations; an update through the API after it still works.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { workflowIds } from '../../../contracts/ids.js';
import type { SenderIdRegistrationInput } from '../../../contracts/senderid-registration.js';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { company, senderIdView, setReviewer, states, waitForView, wireSenderId } from '../../helpers/senderid.js';

let h: Harness;
before(async () => {
  h = await startHarness();
  await wireSenderId(h);
});
after(async () => h.close());

test('PENDING with frequent reads: continues as new, then an update through the API sends it back to review and it is approved', async () => {
  await setReviewer(h, {
    outcome: 'pending',
    stepMs: 150,
    pendingApproval: 'never',
    stopForAttachments: 'never',
    pendingMessage: 'Please confirm the website.',
  });
  const key = uniqueName('can');
  const id = workflowIds['senderid-registration']('sandbox-project', key);
  const input: SenderIdRegistrationInput = {
    projectId: 'sandbox-project',
    key,
    create: { policyId: 'pol-au-long-standard', marketCode: 'AU', registrationType: 'LONG_NUMBER', requestDetails: [{ additionalDetails: [company] }] },
    pollIntervalMs: 150,
    historyLimit: 40,
  };
  const first = await h.client.workflow.start('senderIdRegistration', { workflowId: id, taskQueue: h.config.taskQueue, args: [input] });
  const pending = await waitForView(h, id, (v) => v.state === 'PENDING', 'PENDING');
  assert.ok(
    pending.details.missing?.some((m) => /confirm the website/.test(m)),
    JSON.stringify(pending.details.missing),
  );
  await waitForView(h, id, (v) => (v as unknown as { execution: { runId: string } }).execution.runId !== first.firstExecutionRunId, 'continued as new', 30_000);
  await setReviewer(h, { outcome: 'approve' });
  const url = `/v1/senderid/registrations/${encodeURIComponent(id)}/update`;
  const res = await h.api({
    method: 'POST',
    url,
    headers: { 'idempotency-key': 'fix-1' },
    payload: { requestDetails: [{ additionalDetails: [{ ...company, website: 'https://acme.example/about' }] }] },
  });
  assert.equal(res.statusCode, 200, res.body);
  const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
  // The first run's states are carried across runs. (IN_PROGRESS lasts 150 ms in the sandbox: a loaded machine's
  // reads may see PENDING first, so it is not asserted.)
  assert.deepEqual(states(v).slice(0, 3), ['VALIDATING', 'CREATING', 'IN_QUEUE'], 'history carried across runs');
  assert.ok(states(v).includes('PENDING'));
  assert.match(v.details.senderId ?? '', /^\+6148/);
  const again = await h.api({ method: 'POST', url, headers: { 'idempotency-key': 'fix-1' }, payload: { notificationContacts: ['x@y.example'] } });
  assert.equal(again.statusCode, 409, 'the process has ended');
  assert.equal((await senderIdView(h, id)).state, 'APPROVED');
});
