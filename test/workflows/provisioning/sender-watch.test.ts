// A CHATA sender's process after ACTIVE, on the real Temporal dev server against the sandbox: it keeps watching
// across continue-as-new (health, history and the watch carried; started with a low history limit so a new run
// begins within the test); the platform's news that the sender stopped moves it as it means (ERROR and back,
// DELETED ends it FAILED). A CHATB sender's process stays open at ACTIVE too, until retired or made INACTIVE.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KIND, STATE } from '../../../common/search-attributes.js';
import { workflowIds } from '../../../processes/kinds.js';
import type { ChataSenderInput } from '../../../processes/provisioning/contract.js';
import { useHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { freshMobile, setReviewer, start, stateChanges, update, waitUntil, type View } from '../../helpers/provisioning.js';

const health = (v: View) => (v.details.health ?? {}) as { qualityRating?: string; messagingLimit?: string };
const runOf = (v: View) => (v.execution as { runId?: string }).runId!;

async function sendHealth(h: Harness, senderId: string, body: Record<string, string>): Promise<void> {
  const res = await fetch(`${h.sandbox.url}/_sandbox/provisioning/senders/${senderId}/health`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.text());
}

/** A CHATA sender started directly (a low history limit), once ACTIVE and watched. */
async function watchedSender(h: Harness, historyLimit: number) {
  await setReviewer(h, { chataSenders: { outcome: 'activate', delayMs: 200 } });
  const projectId = h.config.platform.credentials.projectId;
  const processId = workflowIds['chata-sender'](projectId, uniqueName('watch'));
  const input: ChataSenderInput = {
    projectId,
    mode: 'standard',
    sender: { phoneNumber: freshMobile(), displayName: 'Watched' },
    pollIntervalMs: 60_000,
    overdueAfterMs: 600_000,
    historyLimit,
  };
  const handle = await h.client.workflow.start('chataSenderApproval', {
    workflowId: processId,
    taskQueue: h.config.taskQueue,
    args: [input],
    typedSearchAttributes: [
      { key: KIND, value: 'chata-sender' },
      { key: STATE, value: 'CREATING' },
    ],
  });
  const live = await waitUntil(h, processId, (v) => v.details.watchedSince !== undefined, 'ACTIVE and watched');
  return { handle, processId, senderId: live.details.senderId as string, live };
}

describe('a live sender watched after ACTIVE', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '60000' } });

  test('the watch continues as new with its health and history, and goes on in the new run until retired', async () => {
    const { handle, processId, senderId } = await watchedSender(h, 60);
    const ratings = ['YELLOW', 'RED', 'YELLOW', 'GREEN', 'RED', 'YELLOW', 'GREEN', 'RED'];
    let last: View | undefined;
    for (const qualityRating of ratings) {
      await sendHealth(h, senderId, { qualityRating });
      last = await waitUntil(h, processId, (v) => health(v).qualityRating === qualityRating, `quality ${qualityRating}`);
      if (runOf(last) !== handle.firstExecutionRunId) break;
    }
    const continued = await waitUntil(h, processId, (v) => runOf(v) !== handle.firstExecutionRunId, 'a new run');
    assert.equal(continued.state, 'ACTIVE');
    assert.ok(continued.details.watchedSince, 'still watched');
    assert.deepEqual(stateChanges(continued).slice(0, 3), ['CREATING', 'PENDING', 'ACTIVE'], 'the history carried over');
    assert.equal(health(continued).qualityRating, health(last!).qualityRating);

    // The new run watches too (it does not end at ACTIVE): a new limit is told, then a retire ends it.
    await sendHealth(h, senderId, { messagingLimit: 'TIER_10K' });
    const told = await waitUntil(h, processId, (v) => health(v).messagingLimit === 'TIER_10K', 'limit told in the new run');
    assert.equal(told.execution.status, 'RUNNING');
    assert.match(told.history.at(-1)!.reason!, /^health: messaging limit unknown -> TIER_10K/);
    const retired = await update(h, processId, 'senders', 'retire', { reason: 'done' });
    assert.equal(retired.statusCode, 200, retired.body);
    const ended = await waitUntil(h, processId, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
  });

  test('the platform stopping the sender moves the watch as it means: ERROR and back to ACTIVE, DELETED ends it FAILED', async () => {
    const { processId, senderId } = await watchedSender(h, 1_000);
    await sendHealth(h, senderId, { status: 'ERROR' });
    const erred = await waitUntil(h, processId, (v) => v.state === 'ERROR', 'ERROR');
    assert.equal(erred.execution.status, 'RUNNING');
    await sendHealth(h, senderId, { status: 'ACTIVE' });
    const back = await waitUntil(h, processId, (v) => v.state === 'ACTIVE' && v.history.at(-1)!.state === 'ACTIVE', 'ACTIVE again');
    assert.equal(back.execution.status, 'RUNNING', 'still watched');

    await sendHealth(h, senderId, { status: 'DELETED' });
    const failed = await waitUntil(h, processId, (v) => v.execution.status === 'FAILED', 'failed');
    assert.equal(failed.state, 'FAILED');
    assert.match(failed.failure ?? '', /the sender was deleted on the platform/);
  });

  test('a live CHATB sender is watched too: retired while ACTIVE, or ended FAILED when the platform makes it INACTIVE', async () => {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: 200 } });
    const watched = async (name: string) => {
      const processId = await start(h, '/v1/senders/chatb', { displayName: uniqueName(name), categoryCode: 'RETAIL' });
      const live = await waitUntil(h, processId, (v) => v.details.watchedSince !== undefined, 'ACTIVE and watched');
      assert.equal(live.state, 'ACTIVE');
      assert.equal(live.execution.status, 'RUNNING', 'ACTIVE is not its end');
      return { processId, senderId: live.details.senderId as string };
    };
    const inactive = await watched('Inactive');
    await sendHealth(h, inactive.senderId, { status: 'INACTIVE' });
    const failed = await waitUntil(h, inactive.processId, (v) => v.execution.status === 'FAILED', 'failed');
    assert.equal(failed.state, 'FAILED');
    assert.match(failed.failure ?? '', /the sender became inactive/);

    const retired = await watched('Retired');
    const res = await update(h, retired.processId, 'senders', 'retire', { reason: 'done' });
    assert.equal(res.statusCode, 200, res.body);
    const ended = await waitUntil(h, retired.processId, (v) => v.execution.status === 'COMPLETED', 'ended');
    assert.equal(ended.state, 'RETIRED');
  });
});
