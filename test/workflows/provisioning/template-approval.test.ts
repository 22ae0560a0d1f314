// CHATA / CHATB template approval through the API, on the real Temporal dev server against the sandbox:
// approval and the quality watch, rejection and resubmission, INCORRECT_CATEGORY resubmitted by itself,
// duplicate and out-of-order webhooks, an event before the process, an overdue review, a worker
// restart mid-wait, stopping, and (with a short poll interval) a dropped webhook caught by polling.
import { duplicateCallbacks, waitForDuplicateCallbacks } from '../../helpers/metrics.js';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import {
  deliverWebhook,
  reviewerEvent,
  sandboxEvents,
  sandboxRequests,
  setReviewer,
  setWebhookFaults,
  start,
  stateChanges,
  templateBody,
  update,
  view,
  waitUntil,
  type View,
} from '../../helpers/provisioning.js';

const name = (prefix: string) => uniqueName(prefix).replace(/-/g, '_');
const templateIdOf = (v: View) => v.details.templateId as string;
const approve = { templates: { outcome: 'approve', delayMs: 300 } } as const;

async function inbox(h: Harness, channel: string, type: string, id: string) {
  const res = await h.api({ method: 'GET', url: `/v1/provisioning/resources/${channel}/${type}/${encodeURIComponent(id)}/events` });
  return {
    status: res.statusCode,
    body: res.json() as { events: { eventId: string }[]; inbox?: { received: number; duplicates: number; attached: { processId: string }[] } },
  };
}

describe('template approval (webhooks only: polling every minute)', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });

  test('CHATA: approved, then watched (quality, pause, unpause) until deleted; a second start returns the same process', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 300, comment: 'Looks good to us' } });
    const body = templateBody(name('approve'));
    const id = await start(h, '/v1/templates/chata', body);
    assert.match(id, /^chata-template:sandbox-project:approve_[a-z0-9]+:en_US$/);
    assert.equal(await start(h, '/v1/templates/chata', body, 200), id, 'same business key, same process');
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.deepEqual(stateChanges(approved), ['CREATING', 'IN_PROGRESS', 'APPROVED']);
    assert.ok(
      approved.details.comments.some((c) => c.text === 'Looks good to us'),
      'the reviewer comment is kept',
    );
    const templateId = templateIdOf(approved);

    const listed = await h.api({ method: 'GET', url: '/v1/processes?kind=chata-template&state=APPROVED' });
    assert.ok(
      listed.json().processes.some((p: { processId: string }) => p.processId === id),
      'listed by kind and state',
    );
    const perKind = await h.api({ method: 'GET', url: '/v1/templates/chata?state=APPROVED' });
    assert.ok(
      perKind.json().processes.some((p: { processId: string }) => p.processId === id),
      'listed by the per-kind route',
    );

    await reviewerEvent(h, {
      resourceType: 'TEMPLATE',
      resourceId: templateId,
      trigger: 'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED',
      details: { qualityScore: 'QUALITY_SCORE_RED' },
    });
    await waitUntil(h, id, (v) => v.details.qualityScore === 'QUALITY_SCORE_RED', 'quality score RED');
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_STATUS_UPDATED', details: { newState: 'PAUSED' } });
    await h.waitForState(id, 'PAUSED');
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_STATUS_UPDATED', details: { newState: 'UNPAUSED' } });
    await h.waitForState(id, 'APPROVED');
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_DELETED' });
    const deleted = (await h.waitForState(id, 'DELETED')) as unknown as View;
    assert.deepEqual(stateChanges(deleted).slice(2), ['APPROVED', 'PAUSED', 'APPROVED', 'DELETED']);
    assert.ok(
      deleted.history.some((s) => /quality score QUALITY_SCORE_RED/.test(s.reason ?? '')),
      'the quality change is in the history',
    );
    await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'completed');
    assert.equal((await sandboxRequests(h, 'POST', '/chata/templates')).filter((r) => r.status === 200).length >= 1, true);
  });

  test('a rejection records its code; an edit through the API resubmits once (same Idempotency-Key, same answer) and is approved', async () => {
    await setReviewer(h, { templates: { outcome: 'reject', rejectionCode: 'INVALID_FORMAT', delayMs: 300 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('reject')));
    const rejected = (await h.waitForState(id, 'REJECTED')) as unknown as View;
    assert.equal(rejected.details.rejectionCode, 'INVALID_FORMAT');
    assert.match(rejected.history.at(-1)!.reason!, /INVALID_FORMAT/);
    // A review long enough that the edits below still meet it IN_PROGRESS on a loaded machine (300 ms was not).
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 3_000 } });
    const refusedByPlatform = await update(
      h,
      id,
      'templates',
      'resubmit',
      {
        components: [
          { type: 'BODY', text: 'Hi' },
          { type: 'FOOTER', text: 'f'.repeat(70) },
        ],
      },
      'resubmit-0',
    );
    assert.equal(refusedByPlatform.statusCode, 422, refusedByPlatform.body);
    assert.equal(refusedByPlatform.json().error.code, 'platform_rejected');
    assert.match(refusedByPlatform.json().error.message, /components/);
    assert.equal((await view(h, id)).state, 'REJECTED', 'a refused edit changes nothing');
    const edit = { components: [{ type: 'BODY', text: 'Hello {{1}}, your parcel has shipped' }] };
    const first = await update(h, id, 'templates', 'resubmit', edit, 'resubmit-1');
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { accepted: true, state: 'IN_PROGRESS' });
    const again = await update(h, id, 'templates', 'resubmit', edit, 'resubmit-1');
    assert.deepEqual(again.json(), first.json(), 'the repeated request is answered from memory');
    const whileInReview = await update(h, id, 'templates', 'resubmit', edit, 'resubmit-2');
    assert.equal(whileInReview.statusCode, 409, 'an IN_PROGRESS template cannot be edited');
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.deepEqual(stateChanges(approved), ['CREATING', 'IN_PROGRESS', 'REJECTED', 'IN_PROGRESS', 'APPROVED']);
    assert.match(
      approved.history.find((s, i) => i > 0 && s.state === 'IN_PROGRESS' && approved.history[i - 1]!.state === 'REJECTED')!.reason!,
      /resubmitted through the API \(operation resubmit-1\)/,
    );
    assert.equal(approved.details.version, 2);
    const patches = await sandboxRequests(h, 'PATCH', templateIdOf(approved));
    assert.deepEqual(
      patches.map((r) => r.status),
      [400, 200],
      'the refused edit, then one edit',
    );
  });

  test('INCORRECT_CATEGORY is resubmitted by itself with the alternative category when a category change is allowed', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 1_500 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('category'), { allowCategoryChange: true, alternativeCategory: 'UTILITY' }));
    const inReview = (await h.waitForState(id, 'IN_PROGRESS')) as unknown as View;
    await reviewerEvent(h, {
      resourceType: 'TEMPLATE',
      resourceId: templateIdOf(inReview),
      trigger: 'CHATA_TEMPLATE_REJECTED',
      details: { rejectionCode: 'INCORRECT_CATEGORY' },
    });
    const approved = (await h.waitForState(id, 'APPROVED', 15_000)) as unknown as View;
    assert.deepEqual(stateChanges(approved), ['CREATING', 'IN_PROGRESS', 'REJECTED', 'IN_PROGRESS', 'APPROVED']);
    assert.match(approved.history.map((s) => s.reason ?? '').join('|'), /resubmitted automatically with category UTILITY after INCORRECT_CATEGORY/);
    assert.equal(approved.details.category, 'UTILITY');
    assert.equal(approved.details.autoResubmits, 1);
  });

  test('INCORRECT_CATEGORY without permission to change the category waits for the caller', async () => {
    await setReviewer(h, { templates: { outcome: 'reject', rejectionCode: 'INCORRECT_CATEGORY', delayMs: 200 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('nocategory'), { alternativeCategory: 'UTILITY' }));
    const rejected = (await h.waitForState(id, 'REJECTED')) as unknown as View;
    await new Promise((r) => setTimeout(r, 500));
    const still = await view(h, id);
    assert.equal(still.state, 'REJECTED');
    assert.equal(still.details.autoResubmits, 0);
    assert.equal((await sandboxRequests(h, 'PATCH', templateIdOf(rejected))).length, 0, 'nothing edited');
  });

  test('duplicate webhooks are dropped; an older event arriving late never moves the state backwards', async () => {
    await setReviewer(h, approve);
    await setWebhookFaults(h, { duplicate: 10 });
    const repeatsBefore = await duplicateCallbacks(h.api);
    const id = await start(h, '/v1/templates/chata', templateBody(name('dupes')));
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    const templateId = templateIdOf(approved);
    assert.ok(
      (await sandboxEvents(h, templateId)).some((r) => r.duplicated),
      'the sandbox sent duplicates',
    );
    // The intake finds a repeat by its event ID in the store and answers it without handing it over again.
    await waitForDuplicateCallbacks(h.api, repeatsBefore);
    const deduped = await view(h, id);
    assert.equal(new Set(deduped.details.events.map((e) => e.eventId)).size, deduped.details.events.length, 'each event recorded once');
    assert.equal(approved.details.events.filter((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED').length, 1, 'the process saw the approval once');

    await setWebhookFaults(h, { reorder: true });
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_STATUS_UPDATED', details: { newState: 'PAUSED' } });
    const unpaused = (await reviewerEvent(h, {
      resourceType: 'TEMPLATE',
      resourceId: templateId,
      trigger: 'CHATA_TEMPLATE_STATUS_UPDATED',
      details: { newState: 'UNPAUSED' },
    })) as { sequence: number };
    // Both must have reached the process (in whichever order the intake saw them) before judging.
    const settled = await waitUntil(
      h,
      id,
      (v) => [unpaused.sequence - 1, unpaused.sequence].every((q) => v.details.events.some((e) => e.sequence === q)),
      'both PAUSED and UNPAUSED arrived',
    );
    assert.ok(
      (await sandboxEvents(h, templateId)).some((r) => r.reordered && r.event.sequence === unpaused.sequence - 1),
      'the sandbox sent PAUSED after UNPAUSED',
    );
    // Arriving together they are applied in sequence order; arriving after UNPAUSED, PAUSED is stale. Either way UNPAUSED wins.
    assert.equal(settled.state, 'APPROVED');
    const paused = settled.details.events.find((e) => e.sequence === unpaused.sequence - 1)!;
    if (paused.applied === false) assert.match(paused.note ?? '', /^stale/, 'PAUSED after UNPAUSED is recorded as stale');
    else assert.match(settled.history.at(-1)!.reason!, /unpaused by the platform/, 'PAUSED then UNPAUSED, in sequence order');
    await setWebhookFaults(h, {});

    // A late copy of an older change (lower sequence, earlier time) reaches the intake: kept, no effect.
    const late = {
      eventId: `late-${Date.now()}`,
      projectId: 'sandbox-project',
      trigger: 'CHATA_TEMPLATE_STATUS_UPDATED',
      channel: 'CHATA',
      resourceType: 'TEMPLATE',
      resourceId: templateId,
      sequence: unpaused.sequence - 1,
      eventTime: new Date(Date.now() - 60_000).toISOString(),
      details: { newState: 'DISABLED' },
    };
    assert.equal(await deliverWebhook(h, late), 200);
    const after = await waitUntil(h, id, (v) => v.details.events.some((e) => e.eventId === late.eventId), 'the late event recorded');
    const note = after.details.events.find((e) => e.eventId === late.eventId)!;
    assert.equal(note.applied, false);
    assert.match(note.note ?? '', /^stale: state already at sequence/);
    assert.equal(after.state, 'APPROVED', 'not moved back');
    assert.ok(!states(after).includes('DISABLED'));
  });

  test('an event for a resource with no process is kept and acknowledged, then handed to the process that attaches', async () => {
    const clients = createPlatformClients(h.config.platform);
    const tname = name('early');
    const draft = await clients.provisioning.chataTemplates.create({
      name: tname,
      language: 'en_US',
      category: 'UTILITY',
      status: 'DRAFT',
      components: [{ type: 'BODY', text: 'Early bird' }],
    });
    const early = await reviewerEvent(h, {
      resourceType: 'TEMPLATE',
      resourceId: draft.id,
      trigger: 'CHATA_TEMPLATE_COMMENT_ADDED',
      comment: 'Seen before any process',
    });
    const kept = await waitInbox(h, draft.id, (b) => b.events.some((e) => e.eventId === early.eventId));
    assert.equal(kept.inbox?.attached.length, 0, 'no process yet');
    const delivery = (await sandboxEvents(h, draft.id)).find((r) => r.event.eventId === early.eventId);
    assert.equal(delivery?.delivery, 'sent');

    await setReviewer(h, approve);
    const id = await start(h, '/v1/templates/chata', templateBody(tname, { category: 'UTILITY' }));
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.equal(templateIdOf(approved), draft.id, 'the existing draft was taken over, not created twice');
    assert.match(approved.history[1]!.reason!, /found an existing template \(DRAFT\)/);
    assert.ok(
      approved.details.events.some((e) => e.eventId === early.eventId),
      'the early event was forwarded on attach',
    );
    assert.ok(approved.details.comments.some((c) => c.text === 'Seen before any process'));
    const after = await inbox(h, 'CHATA', 'TEMPLATE', draft.id);
    assert.deepEqual(
      after.body.inbox?.attached.map((a) => a.processId),
      [id],
    );
  });

  test('an approval that takes longer than the deadline is reported overdue; the process keeps waiting', async () => {
    // The reviewer decides only when told, once the overdue report is seen: a decision on a timer raced it under load.
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 3_600_000 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('overdue'), { overdueAfterSeconds: 1 }));
    const overdue = await waitUntil(h, id, (v) => v.details.overdue === true, 'overdue', 10_000);
    assert.equal(overdue.state, 'IN_PROGRESS');
    assert.match(overdue.history.at(-1)!.reason!, /^overdue: no decision/);
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateIdOf(overdue), trigger: 'CHATA_TEMPLATE_APPROVED' });
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.equal(approved.details.overdue, false, 'the decision ends the overdue flag');
    assert.ok(
      approved.history.some((s) => /^overdue/.test(s.reason ?? '')),
      'the overdue report stays in the history',
    );
  });

  test('the worker stopped while the review runs: the webhook waits in Temporal, the process completes after the restart', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 1_500 } });
    const id = await start(h, '/v1/templates/chata', templateBody(name('restart')));
    const inReview = (await h.waitForState(id, 'IN_PROGRESS')) as unknown as View;
    await h.stopWorker();
    try {
      const whileDown = await view(h, id);
      assert.equal(whileDown.state, 'IN_PROGRESS');
      assert.equal((whileDown as unknown as { statusSource: string }).statusSource, 'search-attributes');
      const deadline = Date.now() + 10_000;
      while (!(await sandboxEvents(h, templateIdOf(inReview))).some((r) => r.event.trigger === 'CHATA_TEMPLATE_APPROVED') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await h.startWorker();
    }
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.equal(approved.details.events.filter((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED').length, 1);
    assert.equal(approved.details.polls, 0, 'the webhook, not a poll, brought the decision');
  });

  test('stop watching ends the process as STOPPED; stopping again is a 409', async () => {
    await setReviewer(h, approve);
    const id = await start(h, '/v1/templates/chata', templateBody(name('stop')));
    await h.waitForState(id, 'APPROVED');
    const stopped = await update(h, id, 'templates', 'stop', { reason: 'template retired' });
    assert.equal(stopped.statusCode, 200, stopped.body);
    const done = (await h.waitForState(id, 'STOPPED')) as unknown as View;
    assert.match(done.history.at(-1)!.reason!, /template retired/);
    await waitUntil(h, id, (v) => v.execution.status === 'COMPLETED', 'completed');
    assert.equal((await update(h, id, 'templates', 'stop', {})).statusCode, 409);
  });

  test('CHATB: approved with the CHATB triggers; a rejection is recorded the same way', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 300, comment: 'CHATB ok' } });
    const id = await start(h, '/v1/templates/chatb', templateBody(name('chatb'), { createAsDraft: true }));
    assert.match(id, /^chatb-template:/);
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    assert.deepEqual(
      approved.history.slice(1, 3).map((s) => [s.state, s.reason]),
      [
        ['DRAFT', 'created as a draft'],
        ['IN_PROGRESS', 'draft submitted for review'],
      ],
    );
    assert.ok(approved.details.events.some((e) => e.trigger === 'CHATB_TEMPLATE_APPROVED' && e.applied));
    assert.ok(approved.details.comments.some((c) => c.text === 'CHATB ok'));
    await setReviewer(h, { templates: { outcome: 'reject', rejectionCode: 'SCAM', delayMs: 200 } });
    const rid = await start(h, '/v1/templates/chatb', templateBody(name('chatbreject')));
    const rejected = (await h.waitForState(rid, 'REJECTED')) as unknown as View;
    assert.equal(rejected.details.rejectionCode, 'SCAM');
    const got = await h.api({ method: 'GET', url: `/v1/templates/${encodeURIComponent(rid)}` });
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().kind, 'chatb-template');
  });
});

describe('template approval with a lost webhook (polling every second)', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1000' }, sandbox: { provisioningReviewer: approve } });

  // The view is not read while IN_PROGRESS: on a loaded machine a read can miss that one-second window.
  test('the APPROVED webhook dropped: a poll reads the decision from the platform', async () => {
    await setWebhookFaults(h, { drop: 1 });
    const id = await start(h, '/v1/templates/chata', templateBody(name('dropped')));
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    await setWebhookFaults(h, {});
    const records = await sandboxEvents(h, templateIdOf(approved));
    assert.ok(
      records.some((r) => r.event.trigger === 'CHATA_TEMPLATE_APPROVED' && r.delivery === 'dropped'),
      'the webhook was dropped',
    );
    assert.ok(approved.details.polls >= 1);
    assert.match(approved.history.at(-1)!.reason!, /read from the platform/);
  });
});

const states = (v: View) => v.history.map((s) => s.state);

type Inbox = Awaited<ReturnType<typeof inbox>>['body'];

async function waitInbox(h: Harness, resourceId: string, ok: (b: Inbox) => boolean): Promise<Inbox> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await inbox(h, 'CHATA', 'TEMPLATE', resourceId);
    if (r.status === 200 && ok(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`inbox of ${resourceId}: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
