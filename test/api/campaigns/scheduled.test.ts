// A campaign given a start time through the API, against the sandbox and the real Temporal server: SCHEDULED until
// then with nothing sent, then sent as any other; cancelled while scheduled, nothing is ever sent; a start time in
// the past or too far ahead is refused naming body.startAt, and nothing is made.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { conversationStats, createApp, numbers, waitForCampaignView } from '../../helpers/campaigns.js';
import { startTimeOf } from '../../../processes/campaigns/routes/index.js';

const enc = encodeURIComponent;

interface CampaignView {
  state: string;
  history: { state: string; at: string; reason?: string }[];
  counts: { sent: number; cancelled: number };
}

describe('scheduled campaigns', () => {
  let h: Harness;
  let appId: string;
  before(async () => {
    h = await startHarness();
    appId = await createApp(h, 200);
  });
  after(async () => h?.close());

  const start = (body: Record<string, unknown>) =>
    h.api({ method: 'POST', url: '/v1/campaigns/conversation', payload: { appId, region: 'eu', message: { text: 'Hi' }, ...body } });
  const view = async (processId: string) => (await h.api({ method: 'GET', url: `/v1/campaigns/${enc(processId)}` })).json<CampaignView>();

  test('waits SCHEDULED, sending nothing, until its start time; then sends every recipient once', async () => {
    const startAt = new Date(Date.now() + 4_000).toISOString();
    const res = await start({ key: uniqueName('later'), recipients: numbers(5, 41_000), startAt });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json<{ processId: string }>();
    const before = await view(processId);
    assert.equal(before.state, 'SCHEDULED');
    const acceptedBefore = (await conversationStats(h, appId)).accepted;
    const done = await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'COMPLETED');
    assert.equal(done.counts.sent, 5);
    const states = done.history.map((c) => c.state);
    assert.deepEqual(states.slice(0, 3), ['SCHEDULED', 'PREPARING', 'SENDING']);
    const preparing = done.history.find((c) => c.state === 'PREPARING')!;
    assert.ok(Date.parse(preparing.at) >= Date.parse(startAt), `prepared at its start time, not before: ${preparing.at} < ${startAt}`);
    assert.equal((await conversationStats(h, appId)).accepted - acceptedBefore, 5);
  });

  test('cancelled while scheduled: CANCELLED, every recipient cancelled, nothing sent; its rate waits for the start', async () => {
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await start({ key: uniqueName('never'), recipients: numbers(4, 42_000), startAt });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json<{ processId: string }>();
    const rate = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/rate`, payload: { rate: 5 } });
    assert.equal(rate.statusCode, 409, rate.body);
    assert.match(rate.body, /not started yet/);
    const acceptedBefore = (await conversationStats(h, appId)).accepted;
    const cancelled = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/cancel`, payload: {} });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const done = await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'CANCELLED');
    assert.equal(done.counts.cancelled, 4);
    assert.equal(done.counts.sent, 0);
    assert.equal((await conversationStats(h, appId)).accepted, acceptedBefore);
  });

  test('a start time in the past or too far ahead is refused naming body.startAt, and nothing is made', async () => {
    for (const startAt of [new Date(Date.now() - 3_600_000).toISOString(), new Date(Date.now() + 8 * 86_400_000).toISOString()]) {
      const key = uniqueName('bad-start');
      const res = await start({ key, recipients: numbers(2, 43_000), startAt });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(res.json().error.details[0].field, 'body.startAt');
      const again = await start({ key, recipients: numbers(2, 43_000) });
      assert.equal(again.statusCode, 202, `the key was not used: ${again.body}`);
    }
    assert.equal((await start({ recipients: numbers(1, 43_100), startAt: 'tomorrow' })).statusCode, 400);
  });

  test('a start time a little behind the clock starts at once', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(startTimeOf('2025-12-31T23:59:30Z', now), undefined);
    assert.equal(startTimeOf('2026-01-01T01:00:00+01:00', now), undefined);
    assert.equal(startTimeOf('2026-01-01T02:00:00+01:00', now), '2026-01-01T01:00:00.000Z');
  });
});
