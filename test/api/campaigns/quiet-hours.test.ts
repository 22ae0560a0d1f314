// Quiet hours in the recipients' local time, through the API against the sandbox and the real Temporal server: a
// campaign to Sweden and Japan whose quiet hours hold Japan for the next seconds sends Sweden at once, waits
// (WAITING_FOR_WINDOW) with Japan's recipients unsent, and sends them once their window opens; cancelled while it
// waits, the waiting ones are cancelled; bad quiet hours are refused naming the field.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { createApp, numbers, waitForCampaignView } from '../../helpers/campaigns.js';

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

describe('quiet hours', () => {
  let h: Harness;
  let appId: string;
  before(async () => {
    h = await startHarness();
    appId = await createApp(h, 200);
  });
  after(async () => h?.close());

  const start = (body: Record<string, unknown>) =>
    h.api({ method: 'POST', url: '/v1/campaigns/conversation', payload: { appId, region: 'eu', message: { text: 'Hi' }, ...body } });
  const recipients = async (processId: string, status: string) =>
    (await h.api({ method: 'GET', url: `/v1/campaigns/${enc(processId)}/recipients?status=${status}` })).json<RecipientPage>().recipients.map((r) => r.seq);

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
