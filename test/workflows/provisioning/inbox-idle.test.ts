// A resource inbox ends when it is idle (nothing attached still runs, nothing arrived for idleMs) and keeps
// running while events arrive or an attached process runs. A short idleMs in the input stands in for
// RELAYFLOW_INBOX_IDLE_MS.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { workflowIds } from '../../../processes/kinds.js';
import { attachSignal, inboxQuery, provisioningEventSignal, type ProvisioningEvent, type ResourceRef } from '../../../processes/provisioning/contract.js';
import { sleep, within } from '../../helpers/deadline.js';
import { useHarness } from '../../helpers/harness.js';
import { commentEvent } from '../../helpers/provisioning.js';

const IDLE_MS = 1_500;

describe('resource inbox ends when idle', () => {
  const h = useHarness();

  const newResource = (): ResourceRef => ({ channel: 'RCS', resourceType: 'SENDER', resourceId: ulid() });
  const inboxIdOf = (r: ResourceRef) => workflowIds.resourceInbox(r.channel, r.resourceType, r.resourceId);
  const event = commentEvent;
  const send = (r: ResourceRef, e: ProvisioningEvent, idleMs = IDLE_MS) =>
    h.client.workflow.signalWithStart('resourceInbox', {
      workflowId: inboxIdOf(r),
      taskQueue: h.config.taskQueue,
      args: [{ resource: r, idleMs }],
      signal: provisioningEventSignal,
      signalArgs: [e],
    });
  const status = async (id: string) => (await h.client.workflow.getHandle(id).describe()).status.name;
  async function ended(id: string, withinMs: number): Promise<void> {
    await within(h.client.workflow.getHandle(id).result(), withinMs, () => {
      throw new Error(`${id} did not end within ${withinMs} ms`);
    });
    assert.equal(await status(id), 'COMPLETED');
  }

  test('an inbox with nothing attached ends after idleMs without arrivals; the next event starts a fresh one', async () => {
    const r = newResource();
    const first = await send(r, event(r, 1));
    await ended(inboxIdOf(r), 15_000);
    const again = await send(r, event(r, 2));
    assert.notEqual(again.signaledRunId, first.signaledRunId, 'a fresh run');
    const view = await h.client.workflow.getHandle(inboxIdOf(r)).query(inboxQuery);
    assert.equal(view.received, 1, 'the fresh run has the new event');
    await h.client.workflow.getHandle(inboxIdOf(r)).terminate('test done');
  });

  test('arrivals keep an inbox running; it ends once they stop', async () => {
    const r = newResource();
    await send(r, event(r, 1));
    for (let i = 2; i <= 8; i += 1) {
      await sleep(IDLE_MS / 3);
      await send(r, event(r, i));
    }
    assert.equal(await status(inboxIdOf(r)), 'RUNNING', 'events arrived more often than idleMs');
    await ended(inboxIdOf(r), 15_000);
  });

  test('an inbox with a running process attached does not end; it ends once the process has ended', async () => {
    // Any running workflow can stand for the process: another inbox, with the default idle time.
    const processRes = newResource();
    const processId = inboxIdOf(processRes);
    await send(processRes, event(processRes, 1), 3_600_000);
    const r = newResource();
    await h.client.workflow.signalWithStart('resourceInbox', {
      workflowId: inboxIdOf(r),
      taskQueue: h.config.taskQueue,
      args: [{ resource: r, idleMs: IDLE_MS }],
      signal: attachSignal,
      signalArgs: [{ processId }],
    });
    await send(r, event(r, 1));
    await sleep(IDLE_MS * 3);
    assert.equal(await status(inboxIdOf(r)), 'RUNNING', 'the attached process runs');
    const view = await h.client.workflow.getHandle(inboxIdOf(r)).query(inboxQuery);
    assert.equal(view.attached.length, 1);
    assert.equal(view.attached[0]!.detachedAt, undefined, 'still attached');
    assert.equal(view.attached[0]!.forwardedUpTo, 1, 'the event was forwarded');

    await h.client.workflow.getHandle(processId).terminate('the process ended');
    await ended(inboxIdOf(r), 15_000);
  });
});
