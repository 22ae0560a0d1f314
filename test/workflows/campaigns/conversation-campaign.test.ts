// Conversation campaigns against the sandbox on the real Temporal server: every recipient accepted exactly
// once (the sandbox counts), through 429 and 5xx storms, lost answers, pause, resume, cancel, rate changes
// and continue-as-new.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { pauseCampaignUpdate, resumeCampaignUpdate, cancelCampaignUpdate, setCampaignRateUpdate } from '../../../processes/campaigns/contract.js';
import { useHarness } from '../../helpers/harness.js';
import { campaignMessageToken } from '../../../processes/campaigns/contract.js';
import {
  conversationStats,
  createApp,
  numbers,
  platformMessageIds,
  sandboxJson,
  startCampaign,
  waitForCampaign,
  waitForCounts,
} from '../../helpers/campaigns.js';

describe('conversation campaign', () => {
  const h = useHarness({ env: { PLATFORM_REQUEST_TIMEOUT_MS: '1000', RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '50' } });

  const conversation = (appId: string) => ({ appId, region: 'eu' as const, channel: 'SMS' as const, text: 'Your order has shipped' });

  test('sends every recipient once at the app rate, and the delivery reports are counted', async () => {
    // Half the app rate's worth of recipients would do for the pace; each send costs CPU on two shared cores.
    const appId = await createApp(h, 50);
    const started = Date.now();
    const { processId, campaignId } = await startCampaign(h, { kind: 'conversation-campaign', recipients: numbers(150), conversation: conversation(appId) });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED']);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    // Nothing in doubt: SETTLING is never listed, and the timeline still says every send settled.
    assert.deepEqual(
      done.history.map((c) => c.state),
      ['PREPARING', 'SENDING', 'COMPLETED'],
    );
    assert.match(done.history.at(-1)!.reason!, /every recipient has been sent or refused; every send settled/);
    const seconds = (Date.now() - started) / 1000;
    const stats = await conversationStats(h, appId);
    assert.equal(stats.accepted, 150);
    assert.equal(stats.distinctRecipients, 150);
    assert.equal(stats.duplicateRecipients, 0);
    // 150 at 50/s cannot take less than ~3 s, whatever the window: the pace holds.
    assert.ok(seconds >= 2.8, `took ${seconds} s`);
    const counts = await waitForCounts(h, campaignId, (c) => (c.delivery.delivered ?? 0) === 150);
    assert.equal(counts.byStatus.sent, 150);
  });

  test('a 429 storm and a 5xx storm lose nothing and duplicate nothing', async () => {
    const appId = await createApp(h, 200);
    await sandboxJson(h, 'POST', '/_sandbox/faults', {
      area: 'conversation',
      method: 'POST',
      pathContains: 'messages:send',
      status: 429,
      count: 15,
      retryAfterSeconds: 1,
    });
    await sandboxJson(h, 'POST', '/_sandbox/faults', { area: 'conversation', method: 'POST', pathContains: 'messages:send', status: 503, count: 10 });
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(120, 1000),
      conversation: conversation(appId),
    });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED', 'PAUSED'], 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [120, 120, 0]);
    const counts = await h.store.counts(campaignId);
    assert.equal(counts!.byStatus.sent, 120);
    assert.ok((done.details.throttledAttempts as number) > 0, 'the 429s were seen and honoured');
  });

  test('answers lost after the platform accepted are found by their token, not sent again', async () => {
    const appId = await createApp(h, 100);
    // Accepted and recorded by the platform, answered after the client's 1 s timeout.
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/send-faults', { acceptThenDelayMs: 2_500, count: 4 });
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(60, 2000),
      conversation: conversation(appId),
    });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [60, 60, 0]);
    const rows = await h.store.recipients(campaignId, { limit: 200 });
    assert.ok(
      rows.every((r) => r.status === 'sent' && r.platformId),
      'every row sent with the platform message ID',
    );
    // Found by their token: each row holds the ID of the one message the platform took for it (a resend would
    // also show above as a duplicate). `attempts` counts requests, and a request that never reached the platform
    // (a starved client gives up before writing it) is rightly made again, so it is not required to be 1.
    const ids = await platformMessageIds(h, appId);
    assert.deepEqual(
      rows.filter((r) => r.platformId !== ids.get(campaignMessageToken(campaignId, r.seq))).map((r) => r.seq),
      [],
    );
    assert.equal((await sandboxJson<{ count: number }>(h, 'GET', '/_sandbox/conversation/send-faults')).count, 0, 'the 4 late answers happened');
  });

  test('a send that reaches the platform after its client gave up is found by its token, not sent again', async () => {
    const appId = await createApp(h, 100);
    // Held 3 s in front of the platform, then taken: the client gave up after 1 s. Asked for at once, the platform
    // would say "not there" and a resend would make a second message when the first arrives.
    await sandboxJson(h, 'PUT', '/_sandbox/conversation/send-faults', { acceptThenDelayMs: 0, count: 0, arriveAfterMs: 3_000, arriveCount: 2 });
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(10, 4000),
      conversation: conversation(appId),
    });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    // The held sends were on their way before the campaign ended: 3 s on, they have arrived and the counts tell.
    await new Promise((r) => setTimeout(r, 3_500));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [10, 10, 0]);
    assert.equal((await sandboxJson<{ arriveCount: number }>(h, 'GET', '/_sandbox/conversation/send-faults')).arriveCount, 0, 'both sends arrived late');
    const ids = await platformMessageIds(h, appId);
    const rows = await h.store.recipients(campaignId, { limit: 20 });
    assert.deepEqual(
      rows.filter((r) => r.status !== 'sent' || r.platformId !== ids.get(campaignMessageToken(campaignId, r.seq))).map((r) => r.seq),
      [],
    );
  });

  test('pause stops sending, resume finishes, a rate change applies, cancel leaves the rest unsent', async () => {
    const appId = await createApp(h, 40);
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(200, 3000),
      conversation: conversation(appId),
    });
    const handle = h.client.workflow.getHandle(processId);
    await waitForCounts(h, campaignId, (c) => c.byStatus.sent >= 40);
    const paused = await handle.executeUpdate(pauseCampaignUpdate, { args: [{ operationId: 'p1', reason: 'test' }] });
    assert.equal(paused.state, 'PAUSED');
    const atPause = (await conversationStats(h, appId)).accepted;
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await conversationStats(h, appId)).accepted, atPause, 'nothing is sent while paused');
    // Repeating an operation repeats its answer.
    assert.deepEqual(await handle.executeUpdate(pauseCampaignUpdate, { args: [{ operationId: 'p1' }] }), paused);

    const rate = await handle.executeUpdate(setCampaignRateUpdate, { args: [{ operationId: 'r1', rate: 1_000 }] });
    assert.equal(rate.rate, 40, 'capped at the app limit');
    await handle.executeUpdate(setCampaignRateUpdate, { args: [{ operationId: 'r2', rate: 20 }] });
    assert.equal(await h.store.getRate(campaignId), 20);
    await handle.executeUpdate(resumeCampaignUpdate, { args: [{ operationId: 'u1' }] });
    await new Promise((r) => setTimeout(r, 2_000));
    const cancelled = await handle.executeUpdate(cancelCampaignUpdate, { args: [{ operationId: 'c1' }] });
    assert.equal(cancelled.state, 'CANCELLED');
    const done = await waitForCampaign(h, processId, ['CANCELLED']);
    assert.match(done.history.at(-1)!.reason!, /recipients not sent/);
    const stats = await conversationStats(h, appId);
    const counts = (await h.store.counts(campaignId))!;
    assert.equal(stats.duplicateRecipients, 0);
    assert.equal(counts.byStatus.sent, stats.accepted, 'every accepted message is recorded as sent');
    assert.equal(counts.byStatus.sent + counts.byStatus.cancelled, 200);
    assert.ok(counts.byStatus.cancelled > 0);
    const refused = await handle.executeUpdate(resumeCampaignUpdate, { args: [{ operationId: 'u2' }] }).catch((e: Error) => e);
    assert.ok(refused instanceof Error || refused.accepted === false);
  });

  test('a rate change asked for while preparing applies after prepare has set the first rate, not before it', async () => {
    const appId = await createApp(h, 100);
    // Reading the app fails three times: prepare is retried for a few seconds, and the campaign is PREPARING meanwhile.
    await sandboxJson(h, 'POST', '/_sandbox/faults', { area: 'conversation', method: 'GET', pathContains: `apps/${appId}`, status: 503, count: 3 });
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(60, 6000),
      conversation: conversation(appId),
    });
    const handle = h.client.workflow.getHandle(processId);
    const preparing = await waitForCampaign(h, processId, ['PREPARING']);
    assert.equal(preparing.details.end, 0, 'not prepared yet');
    const changed = await handle.executeUpdate(setCampaignRateUpdate, { args: [{ operationId: 'r-early', rate: 30 }] });
    assert.deepEqual([changed.accepted, changed.rate], [true, 30]);
    assert.equal(await h.store.getRate(campaignId), 30, "prepare's rate (the app's 100/s) did not overwrite it");
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED']);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    assert.equal(done.details.rate, 30);
    assert.deepEqual((await conversationStats(h, appId)).distinctRecipients, 60);
  });

  test('continues as new with a small history limit and still sends each recipient once', async () => {
    const appId = await createApp(h, 200);
    const { processId, campaignId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(300, 5000),
      conversation: conversation(appId),
      // The first window is launched at 17 events and any chunk's end adds 4 more, so the second window cannot start in
      // the first run; at 40, two chunks ending in one workflow task (a loaded machine) let one run send them all.
      settings: { historyLimit: 20 },
    });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 90_000);
    assert.equal(done.state, 'COMPLETED');
    const runs = [];
    for await (const w of h.client.workflow.list({ query: `WorkflowId = '${processId}'` })) runs.push(w.runId);
    assert.ok(runs.length >= 2, `continued as new (${runs.length} runs)`);
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [300, 300, 0]);
    assert.equal((await h.store.counts(campaignId))!.byStatus.sent, 300);
  });

  test("the campaign's chunks share one schedule in the store: reservations follow each other, unused tails go back, a 429 holds it, a halt stops it and its claims", async () => {
    const id = ulid();
    await h.store.createCampaign({
      id,
      processId: `pacer-test:${id}`,
      kind: 'conversation-campaign',
      requestHash: 'test',
      total: 1,
      duplicates: 0,
      recipients: [{ seq: 0, recipient: '+46700000000', status: 'pending' }],
    });
    await h.store.setRate(id, 10);
    // Two chunks asking one after the other: the second's slots start where the first's end (100 ms apart at 10/s).
    const a = await h.store.reserveSends(id, 20, 1, 25);
    const b = await h.store.reserveSends(id, 20, 1, 25);
    assert.equal(a.slots, 20);
    assert.equal(a.slotMs, 100);
    assert.ok(a.startInMs <= 0 && a.startInMs >= -26, `an idle schedule makes up at most 25 ms: ${a.startInMs}`);
    assert.ok(Math.abs(b.endsAt - a.endsAt - 2_000) < 0.01, `the second block follows the first: ${b.endsAt - a.endsAt}`);
    assert.ok(b.startInMs > 1_000 && b.startInMs <= 2_000, `the second block starts after the first: ${b.startInMs}`);
    // The last reservation gives back 5 unused slots; an earlier one cannot (a later one follows it).
    await h.store.returnSends(id, b, 5);
    await h.store.returnSends(id, a, 5);
    const c = await h.store.reserveSends(id, 1, 0.5, 25);
    assert.ok(
      Math.abs(c.endsAt - b.endsAt - (-500 + 200)) < 0.01,
      `b's tail went back, a's did not; at half the pace a slot lasts 200 ms: ${c.endsAt - b.endsAt}`,
    );
    // A 429's Retry-After: nothing starts before it.
    await h.store.holdSends(id, 10_000);
    const d = await h.store.reserveSends(id, 1, 1, 25);
    assert.ok(d.startInMs > 9_000, `held: ${d.startInMs}`);
    await h.store.setHalt(id, 'paused');
    const e = await h.store.reserveSends(id, 10, 1, 25);
    assert.deepEqual([e.slots, e.halt, e.rate], [0, 'paused', 10]);
    assert.deepEqual(await h.store.claim(id, 0, 1, 1, 10_000, 'a-claim'), [], "a halted campaign's rows are not claimed");
    await h.store.setHalt(id, null);
    assert.deepEqual(
      (await h.store.claim(id, 0, 1, 1, 10_000, 'a-claim')).map((r) => r.seq),
      [0],
    );
  });

  test('an app the platform does not know fails the campaign with the reason', async () => {
    const { processId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(3, 9000),
      conversation: conversation('01ARZ3NDEKTSV4RRFFQ69G5FAV'),
    });
    const done = await waitForCampaign(h, processId, ['FAILED']);
    assert.match(done.history.at(-1)!.reason!, /404|not found/i);
  });
});
