// Webhooks that carry only what the spec promises ({trigger, comment?, <resource JSON>}: no eventId,
// sequence or eventTime), on the real Temporal dev server against the sandbox. Polling is slowed to a
// minute, so only the reads these events ask for can move a process: each is a hint, the platform's
// state is the truth, and an old body arriving late changes nothing.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import {
  deliverWebhook,
  freshMobile,
  reviewerEvent,
  sandboxEvents,
  setReviewer,
  setWebhookEnvelope,
  setWebhookFaults,
  start,
  stateChanges,
  templateBody,
  waitUntil,
  type View,
} from '../../helpers/provisioning.js';

const name = (prefix: string) => uniqueName(prefix).replace(/-/g, '_');
const hints = (v: View, trigger?: string) => v.details.events.filter((e) => e.hint && (!trigger || e.trigger === trigger));

describe('provisioning processes with minimal webhook events', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });
  });
  afterEach(async () => {
    await setWebhookEnvelope(h, { shape: 'full' });
    await setWebhookFaults(h, {});
  });
  after(async () => h.close());

  test('a template approval reaches APPROVED by reading the template; the reviewer comment is kept', async () => {
    await setWebhookEnvelope(h, { shape: 'minimal' });
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 300, comment: 'Fine by us' } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('minimal')));
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED' && v.details.comments.length > 0, 'APPROVED with the comment');
    assert.deepEqual(stateChanges(approved), ['CREATING', 'IN_PROGRESS', 'APPROVED']);
    assert.equal(approved.details.polls, 0, 'no poll: the events brought it');
    assert.ok((approved.details.hintReads as number) >= 1);
    assert.ok(
      approved.details.events.length >= 1 && approved.details.events.every((e) => e.hint && e.sequence === undefined && e.eventId.startsWith('sha256:')),
    );
    // The comment's read may already find it approved (the reviewer approves right after commenting).
    assert.match(
      approved.history.at(-1)!.reason!,
      /^read from the platform after [A-Z_, ]*CHATA_TEMPLATE_(COMMENT_ADDED|APPROVED)[A-Z_, ]* \(an event without a sequence\)$/,
    );
    const comment = approved.details.comments.find((c) => c.text === 'Fine by us');
    assert.ok(comment, 'the comment is kept');
    const sent = await sandboxEvents(h, approved.details.templateId as string);
    assert.ok(
      sent.length >= 2 && sent.every((r) => r.body.eventId === undefined && (r.body.resource as { id: string }).id === approved.details.templateId),
      'the sandbox sent minimal bodies',
    );
  });

  test('CHATA and CHATB senders reach ACTIVE from minimal events (JSON at the top, and under `sender`)', async () => {
    await setReviewer(h, {
      chataSenders: { outcome: 'activate', delayMs: 300 },
      chatbSenders: { outcome: 'activate', delayMs: 300, comment: 'Welcome aboard' },
    });
    await setWebhookEnvelope(h, { shape: 'minimal', resourceAt: 'top' });
    const chata = await start(h, '/v1/senders/chata', { phoneNumber: freshMobile(), displayName: 'Minimal A' });
    const a = await waitUntil(h, chata, (v) => v.state === 'ACTIVE', 'CHATA ACTIVE');
    assert.deepEqual(stateChanges(a), ['CREATING', 'PENDING', 'ACTIVE']);
    assert.equal(a.details.polls, 0);
    assert.equal(hints(a, 'CHATA_WABA_ACCOUNT_CHANGED').length, 1, 'the account event reached the SENDER process');
    assert.equal(typeof a.details.maxTps, 'number', 'the read brought maxTps');

    await setWebhookEnvelope(h, { shape: 'minimal', resourceAt: 'type' });
    const chatb = await start(h, '/v1/senders/chatb', { displayName: uniqueName('MinimalB'), categoryCode: 'RETAIL' });
    const b = await waitUntil(h, chatb, (v) => v.state === 'ACTIVE', 'CHATB ACTIVE');
    assert.deepEqual(stateChanges(b), ['CREATING', 'IN_REVIEW', 'ACTIVE']);
    assert.equal(b.details.polls, 0);
    assert.ok(b.details.comments.some((c) => c.text === 'Welcome aboard'));
  });

  test("an old REJECTED body arriving after APPROVED (reordered, and a late copy) leaves the platform's state: APPROVED", async () => {
    await setWebhookEnvelope(h, { shape: 'minimal', resourceAt: 'payload' });
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 300 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('order')));
    const approved = await waitUntil(h, id, (v) => v.state === 'APPROVED', 'APPROVED');
    const templateId = approved.details.templateId as string;
    const reads = approved.details.hintReads as number;

    // The platform rejects, then approves again; the rejection's webhook is held and arrives last.
    await setWebhookFaults(h, { reorder: true });
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_REJECTED', details: { rejectionCode: 'SCAM' } });
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_APPROVED' });
    const settled = await waitUntil(
      h,
      id,
      (v) => hints(v, 'CHATA_TEMPLATE_REJECTED').length === 1 && hints(v, 'CHATA_TEMPLATE_APPROVED').length === 2,
      'both arrived',
    );
    const log = await sandboxEvents(h, templateId);
    assert.ok(
      log.some((r) => r.reordered && r.event.trigger === 'CHATA_TEMPLATE_REJECTED'),
      'the sandbox sent REJECTED after APPROVED',
    );
    assert.equal(
      (log.find((r) => r.event.trigger === 'CHATA_TEMPLATE_REJECTED')!.body.payload as { state: string }).state,
      'REJECTED',
      'its body says REJECTED',
    );
    await waitUntil(h, id, (v) => (v.details.hintReads as number) > reads, 'read after them');

    // A late copy of an even older body, delivered straight to the intake.
    const late = {
      trigger: 'CHATA_TEMPLATE_REJECTED',
      comment: 'Looks like a scam',
      payload: { id: templateId, state: 'REJECTED', rejectionCode: 'SCAM', updateTime: new Date(Date.now() - 3_600_000).toISOString() },
    };
    assert.equal(await deliverWebhook(h, late), 200);
    const after = await waitUntil(
      h,
      id,
      (v) => hints(v, 'CHATA_TEMPLATE_REJECTED').length === 2 && v.details.comments.some((c) => c.text === 'Looks like a scam'),
      'the late body recorded',
    );
    assert.equal(after.state, 'APPROVED');
    assert.deepEqual(stateChanges(after), ['CREATING', 'IN_PROGRESS', 'APPROVED'], 'never REJECTED');
    assert.equal(after.details.rejectionCode, undefined);
    assert.ok(
      settled.details.events.every((e) => e.applied === false),
      'hints change nothing by themselves',
    );
  });
});
