// A long wait continues as new and carries everything: the history of states, the registration, the seen
// callbacks and the answers to repeated operations; an update through the API after it still works.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { company, senderIdView, setReviewer, startPendingRegistration, states, waitForView, wireSenderId } from '../../helpers/senderid.js';

const h = useHarness({}, async (h) => {
  await wireSenderId(h);
});

test('PENDING with frequent reads: continues as new, then an update through the API sends it back to review and it is approved', async () => {
  const { id, first } = await startPendingRegistration(h, uniqueName('can'));
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
