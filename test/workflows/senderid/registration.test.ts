// Sender ID registrations end to end through the API, on the real Temporal dev server against the sandbox:
// approval (alphanumeric AU), an assigned long number and short code, a rejection, a stop for attachments
// resolved by an upload through the API, duplicated and reordered callbacks. Callbacks only (the periodic
// read is an hour away), so every step here came by a callback.
import { duplicateCallbacks, waitForDuplicateCallbacks } from '../../helpers/metrics.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import {
  brandRegistration,
  company,
  SEEN_STEP_MS,
  sentCallbacks,
  setCallbackFaults,
  setReviewer,
  startRegistration,
  states,
  waitForView,
  wireSenderId,
} from '../../helpers/senderid.js';

describe('sender ID registration (callbacks only)', () => {
  const h = useHarness({ env: { RELAYFLOW_SENDERID_POLL_INTERVAL_MS: '3600000' } }, async (h) => {
    await wireSenderId(h);
  });

  test('AU alphanumeric: approved; the history carries the log messages and etaDate; a second start is the same process', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: SEEN_STEP_MS, pendingApproval: 'never' });
    const body = brandRegistration(uniqueName('alpha'));
    const id = await startRegistration(h, body);
    assert.match(id, /^senderid-registration:sandbox-project:alpha-/);
    assert.equal(await startRegistration(h, body, 200), id);
    const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
    assert.deepEqual(states(v), ['VALIDATING', 'CREATING', 'IN_QUEUE', 'IN_PROGRESS', 'APPROVED']);
    assert.equal(v.details.senderId, 'Acme');
    assert.ok(v.details.etaDate, 'etaDate kept');
    assert.ok(
      v.history.some((s) => /Registration is being processed/.test(s.reason ?? '') && /eta \d{4}-\d{2}-\d{2}/.test(s.reason ?? '')),
      JSON.stringify(v.history),
    );
    assert.ok(v.details.logs.length >= 2);
    assert.ok(v.details.callbacks >= 2, 'moved by callbacks');
    await waitForView(h, id, (x) => x.execution.status === 'COMPLETED', 'completed');
    const listed = await h.api({ method: 'GET', url: '/v1/senderid/registrations?state=APPROVED' });
    assert.ok(listed.json().processes.some((p: { processId: string }) => p.processId === id));
  });

  test('AU long number and US short code: the platform assigns the sender ID, the process ends with it', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: SEEN_STEP_MS, pendingApproval: 'policy', stopForAttachments: 'never' });
    const long = await startRegistration(h, { key: uniqueName('long'), policyId: 'pol-au-long-standard', requestDetails: [{ additionalDetails: [company] }] });
    const short = await startRegistration(h, {
      key: uniqueName('short'),
      policyId: 'pol-us-short-code',
      requestDetails: [{ additionalDetails: [{ ...company, monthlyVolume: '10000' }] }],
    });
    const l = await waitForView(h, long, (x) => x.state === 'APPROVED', 'APPROVED');
    assert.match(l.details.senderId ?? '', /^\+6148\d{7}$/);
    assert.match(l.history.at(-1)!.reason ?? '', /sender ID \+6148/);
    const s = await waitForView(h, short, (x) => x.state === 'APPROVED', 'APPROVED');
    assert.match(s.details.senderId ?? '', /^\d{5}$/);
    assert.ok(states(s).includes('PENDING_APPROVAL'), 'manual price approval on the way');
  });

  test('a rejection ends the process REJECTED with the reason from the logs', async () => {
    await setReviewer(h, { outcome: 'reject', stepMs: 200, pendingApproval: 'never', rejectionReason: 'Brand not verified.' });
    const id = await startRegistration(h, brandRegistration(uniqueName('rej'), 'Rejectme'));
    const v = await waitForView(h, id, (x) => x.state === 'REJECTED', 'REJECTED');
    assert.match(v.history.at(-1)!.reason ?? '', /Brand not verified/);
    const again = await h.api({
      method: 'POST',
      url: `/v1/senderid/registrations/${encodeURIComponent(id)}/update`,
      payload: { notificationContacts: ['a@b.example'] },
    });
    assert.equal(again.statusCode, 409, again.body);
  });

  test('a stop for attachments says what is missing; an upload through the API resolves it', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: SEEN_STEP_MS, pendingApproval: 'never', stopForAttachments: 'missing', uploadMs: 200 });
    const id = await startRegistration(h, { ...brandRegistration(uniqueName('att')), policyId: 'pol-au-alpha-aggregator' });
    const waiting = await waitForView(h, id, (x) => x.state === 'PENDING_ATTACHMENTS', 'PENDING_ATTACHMENTS');
    assert.ok(
      waiting.details.missing?.some((m) => /att-au-loa/.test(m)),
      JSON.stringify(waiting.details.missing),
    );
    const url = `/v1/senderid/registrations/${encodeURIComponent(id)}/attachments`;
    const pdf = Buffer.from('%PDF-1.4 letter of authorisation').toString('base64');
    const wrongType = await h.api({
      method: 'POST',
      url,
      payload: { attachmentDefinitionId: 'att-au-loa', fileName: 'loa.txt', mimeType: 'text/plain', content: pdf },
    });
    assert.equal(wrongType.statusCode, 422, wrongType.body);
    assert.equal(wrongType.json().error.details[0].field, 'body.mimeType');
    const unknownDef = await h.api({
      method: 'POST',
      url,
      payload: { attachmentDefinitionId: 'att-nope', fileName: 'loa.pdf', mimeType: 'application/pdf', content: pdf },
    });
    assert.equal(unknownDef.statusCode, 422, unknownDef.body);
    assert.equal(unknownDef.json().error.details[0].field, 'body.attachmentDefinitionId');
    const ok = await h.api({
      method: 'POST',
      url,
      headers: { 'idempotency-key': 'upload-1' },
      payload: { attachmentDefinitionId: 'att-au-loa', fileName: 'loa.pdf', mimeType: 'application/pdf', content: pdf },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().attachment.uploadStatus, 'WAITING');
    const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
    assert.ok(states(v).indexOf('PENDING_ATTACHMENTS') < states(v).lastIndexOf('IN_PROGRESS'), JSON.stringify(states(v)));
    assert.equal(v.details.attachments.find((a) => a.attachmentDefinitionId === 'att-au-loa')?.uploadStatus, 'COMPLETED');
  });

  test('stop leaves the registration on the platform; delete removes it; both end the process', async () => {
    await setReviewer(h, { outcome: 'pending', stepMs: 150, pendingApproval: 'never', stopForAttachments: 'never' });
    const platform = createPlatformClients(h.config.platform).senderid;
    const stopped = await startRegistration(h, brandRegistration(uniqueName('stop')));
    const deleted = await startRegistration(h, brandRegistration(uniqueName('del')));
    const s = await waitForView(h, stopped, (x) => x.state === 'PENDING', 'PENDING');
    const d = await waitForView(h, deleted, (x) => x.state === 'PENDING', 'PENDING');
    const stop = await h.api({ method: 'POST', url: `/v1/senderid/registrations/${encodeURIComponent(stopped)}/stop`, payload: { reason: 'not needed' } });
    assert.deepEqual(stop.json(), { accepted: true, state: 'STOPPED' });
    const del = await h.api({ method: 'POST', url: `/v1/senderid/registrations/${encodeURIComponent(deleted)}/delete`, payload: {} });
    assert.deepEqual(del.json(), { accepted: true, state: 'DELETED' });
    await waitForView(h, stopped, (x) => x.state === 'STOPPED' && x.execution.status === 'COMPLETED', 'STOPPED');
    await waitForView(h, deleted, (x) => x.state === 'DELETED' && x.execution.status === 'COMPLETED', 'DELETED');
    assert.equal((await platform.getRegistration(s.details.registrationId!)).status, 'PENDING', 'still on the platform');
    await assert.rejects(platform.getRegistration(d.details.registrationId!), /404|NOT_FOUND|not found/i);
    const late = await h.api({ method: 'POST', url: `/v1/senderid/registrations/${encodeURIComponent(deleted)}/stop`, payload: {} });
    assert.equal(late.statusCode, 409, late.body);
  });

  test('duplicated and reordered callbacks: duplicates dropped by eventId, an old state changes nothing', async () => {
    await setReviewer(h, { outcome: 'approve', stepMs: 300, pendingApproval: 'always' });
    await setCallbackFaults(h, { duplicate: 10, reorder: true });
    try {
      const repeatsBefore = await duplicateCallbacks(h.api);
      const id = await startRegistration(h, brandRegistration(uniqueName('dup')));
      const v = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
      // The intake finds a repeat by its event ID in the store and answers it without handing it over again
      // (possibly after APPROVED: wait for one, not 500 ms).
      await waitForDuplicateCallbacks(h.api, repeatsBefore);
      const after = await waitForView(h, id, (x) => x.state === 'APPROVED', 'APPROVED');
      const sent = await sentCallbacks(h, v.details.registrationId!);
      assert.ok(
        sent.some((c) => c.duplicated),
        'the sandbox duplicated some',
      );
      assert.ok(
        sent.some((c) => c.reordered),
        'the sandbox reordered one',
      );
      assert.equal(after.state, 'APPROVED', 'never back from a final state');
      const seq = states(after);
      assert.equal(seq.at(-1), 'APPROVED');
      assert.equal(seq.filter((s) => s === 'APPROVED').length, 1);
    } finally {
      await setCallbackFaults(h, {});
    }
  });
});
