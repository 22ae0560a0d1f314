// Long-lived provisioning workflows continue as new and carry their state: a template process (history,
// quality, seen events: a duplicate from before is still dropped) and a resource inbox (kept events,
// duplicates). Started with a low history limit so a new run begins within the test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { workflowIds } from '../../../processes/kinds.js';
import { inboxQuery, provisioningEventSignal, type ProvisioningEvent } from '../../../processes/provisioning/contract.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { reviewerEvent, sandboxEvents, setReviewer, startApprovedTemplate, stateChanges, waitUntil } from '../../helpers/provisioning.js';

describe('continue-as-new of provisioning workflows', () => {
  const h = useHarness({
    env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' },
    sandbox: { provisioningReviewer: { templates: { outcome: 'approve', delayMs: 200 } } },
  });

  test('a template process continues as new with its history, details and seen events', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const { handle, processId, templateId } = await startApprovedTemplate(h, uniqueName('can').replace(/-/g, '_'));
    const scores = ['QUALITY_SCORE_GREEN', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_RED', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_GREEN', 'QUALITY_SCORE_RED'];
    for (const qualityScore of scores) {
      await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED', details: { qualityScore } });
      await waitUntil(h, processId, (v) => v.details.qualityScore === qualityScore && v.details.events.length > 0, `quality ${qualityScore}`);
    }
    const continued = await waitUntil(
      h,
      processId,
      (v) => (v as unknown as { execution: { runId: string } }).execution.runId !== handle.firstExecutionRunId,
      'a new run',
    );
    assert.deepEqual(stateChanges(continued).slice(0, 3), ['CREATING', 'IN_PROGRESS', 'APPROVED'], 'the history carried over');
    assert.equal(continued.details.qualityScore, 'QUALITY_SCORE_RED');
    assert.equal(continued.details.templateId, templateId);

    const approvedEvent = (await sandboxEvents(h, templateId)).find((r) => r.event.trigger === 'CHATA_TEMPLATE_APPROVED')!
      .event as unknown as ProvisioningEvent;
    const before = continued.details.duplicateEvents;
    await h.client.workflow.getHandle(processId).signal(provisioningEventSignal, approvedEvent);
    const dropped = await waitUntil(h, processId, (v) => v.details.duplicateEvents === before + 1, 'the old event dropped as a duplicate');
    assert.equal(dropped.details.events.filter((e) => e.eventId === approvedEvent.eventId).length, 1, 'recorded once, in the first run');

    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_STATUS_UPDATED', details: { newState: 'DISABLED' } });
    await h.waitForState(processId, 'DISABLED');
  });

  test('a resource inbox continues as new with the events it kept; duplicates are still dropped', async () => {
    const resource = { channel: 'RCS' as const, resourceType: 'SENDER' as const, resourceId: ulid() };
    const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
    const events: ProvisioningEvent[] = Array.from({ length: 12 }, (_, i) => ({
      eventId: ulid(),
      projectId: 'sandbox-project',
      trigger: 'RCS_SENDER_COMMENT_ADDED',
      ...resource,
      sequence: i + 1,
      eventTime: new Date().toISOString(),
      comment: `c${i}`,
      details: {},
    }));
    const send = (e: ProvisioningEvent) =>
      h.client.workflow.signalWithStart('resourceInbox', {
        workflowId: inboxId,
        taskQueue: h.config.taskQueue,
        args: [{ resource, historyLimit: 20 }],
        signal: provisioningEventSignal,
        signalArgs: [e],
      });
    const first = await send(events[0]!);
    for (const e of events.slice(1)) await send(e);
    await send(events[0]!);
    await send(events[5]!);
    const deadline = Date.now() + 15_000;
    let view = await h.client.workflow.getHandle(inboxId).query(inboxQuery);
    let runId = (await h.client.workflow.getHandle(inboxId).describe()).runId;
    while ((view.duplicates < 2 || runId === first.signaledRunId) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      view = await h.client.workflow.getHandle(inboxId).query(inboxQuery);
      runId = (await h.client.workflow.getHandle(inboxId).describe()).runId;
    }
    assert.notEqual(runId, first.signaledRunId, 'a new run began');
    assert.equal(view.received, 12);
    assert.equal(view.duplicates, 2);
    assert.deepEqual(
      view.events.map((e) => e.eventId),
      events.map((e) => e.eventId),
    );
  });
});
