// Business keys of templates and senders after a final state: while a process runs, the same request
// answers it (200, created: false); once it has ended (stopped, deleted) the same request starts a
// new run under the same key (202, created: true) and the old run stays readable in Temporal's history.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { processStatusQuery } from '../../../contracts/process-status.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { within } from '../../helpers/deadline.js';
import { freshMobile, reviewerEvent, sandboxRequests, setReviewer, templateBody, update, waitUntil, type View } from '../../helpers/provisioning.js';

const runOf = (v: View) => (v.execution as { runId?: string }).runId!;
const completed = (v: View) => v.execution.status === 'COMPLETED';

async function post(h: Harness, url: string, body: Record<string, unknown>) {
  const res = await h.api({ method: 'POST', url, payload: body });
  return { status: res.statusCode, body: res.json<{ processId: string; created: boolean }>() };
}

describe('business keys after a final state', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });

  test('a stopped template: the same POST starts a new run (202), the old run stays in history', async () => {
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 200 } });
    const body = templateBody(uniqueName('reuse').replace(/-/g, '_'));
    const first = await post(h, '/v1/templates/chata', body);
    assert.equal(first.status, 202);
    assert.equal(first.body.created, true);
    const id = first.body.processId;
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;

    const running = await post(h, '/v1/templates/chata', body);
    assert.equal(running.status, 200, 'a running process answers the request');
    assert.deepEqual([running.body.processId, running.body.created], [id, false]);

    const stop = await update(h, id, 'templates', 'stop', { reason: 'done with it' });
    assert.equal(stop.statusCode, 200, stop.body);
    const stopped = await waitUntil(h, id, completed, 'completed');
    assert.equal(stopped.state, 'STOPPED');
    const oldRun = runOf(stopped);
    assert.equal(runOf(approved), oldRun);
    const templateCreates = (await sandboxRequests(h, 'POST', '/chata/templates')).filter((r) => r.status === 200).length;

    const again = await post(h, '/v1/templates/chata', body);
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.deepEqual([again.body.processId, again.body.created], [id, true]);
    const followed = await waitUntil(h, id, (v) => runOf(v) !== oldRun && v.state === 'APPROVED', 'the new run follows the template');
    assert.equal(followed.execution.status, 'RUNNING');
    assert.equal(followed.details.templateId, approved.details.templateId, 'the existing template, found by name and language');
    assert.equal((await sandboxRequests(h, 'POST', '/chata/templates')).filter((r) => r.status === 200).length, templateCreates, 'no second template');

    const old = h.client.workflow.getHandle(id, oldRun);
    const described = await old.describe();
    assert.equal(described.runId, oldRun);
    assert.equal(described.status.name, 'COMPLETED');
    const oldStatus = await old.query(processStatusQuery);
    assert.equal(oldStatus.state, 'STOPPED');
    assert.match(oldStatus.history.at(-1)!.reason!, /done with it/);

    // A deleted template ends the new run too; the key is free again.
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: approved.details.templateId, trigger: 'CHATA_TEMPLATE_DELETED' });
    const deleted = await waitUntil(h, id, (v) => completed(v) && runOf(v) !== oldRun, 'second run completed');
    assert.equal(deleted.state, 'DELETED');
    const third = await post(h, '/v1/templates/chata', body);
    assert.equal(third.status, 202);
    assert.equal(third.body.created, true);
    await waitUntil(h, id, (v) => runOf(v) !== oldRun && runOf(v) !== runOf(deleted), 'a third run');
    assert.equal((await update(h, id, 'templates', 'stop')).statusCode, 200);
  });

  test('an ACTIVE CHATA sender is watched: the same POST answers it; once stopped, a new run finds the sender and follows it to ACTIVE', async () => {
    await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 200 } });
    const body = { phoneNumber: freshMobile(), displayName: 'Reused key' };
    const first = await post(h, '/v1/senders/chata', body);
    assert.equal(first.status, 202);
    const id = first.body.processId;
    const watched = (v: View) => v.state === 'ACTIVE' && v.details.watchedSince !== undefined;
    const active = await waitUntil(h, id, watched, 'ACTIVE and watched');
    const running = await post(h, '/v1/senders/chata', body);
    assert.equal(running.status, 200, JSON.stringify(running.body));
    assert.equal(running.body.created, false);

    assert.equal((await update(h, id, 'senders', 'stop')).statusCode, 200);
    // The run's end from Temporal itself: a view of a closed run needs a worker to replay it, slow on a loaded machine.
    await within(h.client.workflow.getHandle(id, runOf(active)).result(), 60_000, () => assert.fail('the stopped run did not end within 60 s'));
    const again = await post(h, '/v1/senders/chata', body);
    assert.equal(again.status, 202, JSON.stringify(again.body));
    assert.equal(again.body.created, true);
    const second = await waitUntil(h, id, (v) => watched(v) && runOf(v) !== runOf(active), 'second run ACTIVE');
    assert.equal(second.details.senderId, active.details.senderId, 'the same sender, not a new one');
    assert.equal((await h.client.workflow.getHandle(id, runOf(active)).describe()).status.name, 'COMPLETED', 'the first run is still in history');
    assert.equal((await update(h, id, 'senders', 'stop')).statusCode, 200);
  });
});
