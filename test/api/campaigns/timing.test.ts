// When a campaign sends, through the API against the sandbox and the real Temporal server. A start time: SCHEDULED
// until then with nothing sent, then sent as any other; cancelled while scheduled, nothing is ever sent; a time in the
// past or too far ahead is refused naming body.startAt. Quiet hours in the recipients' local time: a campaign to
// Sweden and Japan whose quiet hours hold Japan for the next seconds sends Sweden at once, waits
// (WAITING_FOR_WINDOW) with Japan's recipients unsent, and sends them once their window opens; cancelled while it
// waits, the waiting ones are cancelled; bad quiet hours are refused naming the field.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { conversationStats, createApp, numbers, waitForCampaignView } from '../../helpers/campaigns.js';
import { startTimeOf } from '../../../processes/campaigns/routes/index.js';

const enc = encodeURIComponent;
const japan = (n: number, offset: number) => Array.from({ length: n }, (_, i) => `+8190${String(offset + i).padStart(8, '0')}`);

interface CampaignView {
  state: string;
  history: { state: string; at: string; reason?: string }[];
  counts: { sent: number; waiting: number; cancelled: number };
}
interface RecipientPage {
  recipients: { seq: number; status: string }[];
}

/** "HH:MM:SS" in Tokyo (UTC+9, no daylight saving) `secondsFromNow` from now. */
function tokyoTime(secondsFromNow: number): string {
  const t = new Date(Date.now() + secondsFromNow * 1000 + 9 * 3_600_000);
  return t.toISOString().slice(11, 19);
}

describe('campaign timing', () => {
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
  const recipients = async (processId: string, status: string) =>
    (await h.api({ method: 'GET', url: `/v1/campaigns/${enc(processId)}/recipients?status=${status}` })).json<RecipientPage>().recipients.map((r) => r.seq);

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

  test('each recipient is sent only inside its window: Sweden at once, Japan when its quiet hours end', async () => {
    // Quiet in Tokyo from an hour ago until 20 s from now; Stockholm, 8 hours behind, is outside them.
    const quietHours = { from: tokyoTime(-3600), to: tokyoTime(20) };
    const windowOpens = Math.floor((Date.now() + 20_000) / 1000) * 1000;
    const res = await start({ key: uniqueName('quiet'), recipients: [...numbers(3, 44_000), ...japan(2, 1_000)], quietHours });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json<{ processId: string }>();
    const waiting = await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'WAITING_FOR_WINDOW' && v.counts.sent === 3);
    assert.equal(waiting.counts.waiting, 2);
    assert.match(waiting.history.at(-1)!.reason!, /2 recipients wait for their window/);
    assert.deepEqual(await recipients(processId, 'waiting'), [3, 4]);
    assert.deepEqual(await recipients(processId, 'sent'), [0, 1, 2]);
    const done = await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'COMPLETED', 90_000);
    assert.equal(done.counts.sent, 5);
    assert.equal(done.counts.waiting, 0);
    const sending = done.history.filter((c) => c.state === 'SENDING');
    assert.equal(sending.length, 2, 'sending, waiting, then sending again');
    assert.ok(Date.parse(sending[1]!.at) >= windowOpens, `Japan sent from ${sending[1]!.at}, its window opened at ${new Date(windowOpens).toISOString()}`);
  });

  test('cancelled while it waits for a window: the waiting recipients are cancelled, never sent', async () => {
    const quietHours = { from: tokyoTime(-3600), to: tokyoTime(3600) };
    const res = await start({ key: uniqueName('quiet-cancel'), recipients: [...numbers(1, 44_100), ...japan(2, 2_000)], quietHours });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json<{ processId: string }>();
    await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'WAITING_FOR_WINDOW');
    const cancelled = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/cancel`, payload: {} });
    assert.equal(cancelled.statusCode, 200, cancelled.body);
    const done = await waitForCampaignView<CampaignView>(h, processId, (v) => v.state === 'CANCELLED');
    assert.deepEqual([done.counts.sent, done.counts.cancelled, done.counts.waiting], [1, 2, 0]);
  });

  test('quiet hours of no length or of a wrong shape are refused naming the field, and nothing is made', async () => {
    const same = await start({ key: uniqueName('quiet-bad'), recipients: numbers(1, 44_200), quietHours: { from: '21:00', to: '21:00:00' } });
    assert.equal(same.statusCode, 422, same.body);
    assert.equal(same.json().error.details[0].field, 'body.quietHours.to');
    const shape = await start({ recipients: numbers(1, 44_200), quietHours: { from: '9pm', to: '08:00' } });
    assert.equal(shape.statusCode, 400, shape.body);
    assert.equal(shape.json().error.details[0].field, 'body.quietHours.from');
  });
});
