// Campaigns through the API against the sandbox and the real Temporal server: start, counts with delivery
// reports, per-recipient outcomes, the same key, bad input, control routes, and the signed delivery intake.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { conversationWebhookSignature, CONVERSATION_WEBHOOK_HEADERS } from '../../../common/signing.js';
import { SANDBOX_CONVERSATION_WEBHOOK_SECRET } from '../../../common/config.js';
import { startHarness, uniqueName, type Harness } from '../../helpers/harness.js';
import { conversationStats, createApp, numbers, waitForCampaignView } from '../../helpers/campaigns.js';

const enc = encodeURIComponent;

describe('campaign API', () => {
  let h: Harness;
  let appId: string;
  interface CampaignView {
    state: string;
    progress: number;
    counts: { sent: number; invalid: number; cancelled: number; delivery: Record<string, number> };
  }
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '50' } });
    appId = await createApp(h, 200);
  });
  after(async () => h?.close());

  const start = (body: Record<string, unknown>) =>
    h.api({ method: 'POST', url: '/v1/campaigns/conversation', payload: { appId, region: 'eu', message: { text: 'Hi' }, ...body } });

  const waitFor = (processId: string, ok: (v: CampaignView) => boolean) => waitForCampaignView(h, processId, ok);

  test('a campaign runs end to end: invalid and duplicate numbers reported, every valid one sent once and delivered', async () => {
    const key = uniqueName('launch');
    const recipients = [...numbers(150, 20_000), '+46700020000', '12', '070-002 01 49'];
    const res = await start({ key, recipients, defaultCountry: 'SE' });
    assert.equal(res.statusCode, 202, res.body);
    const started = res.json();
    assert.deepEqual(started.counts, { total: 153, valid: 150, invalid: 1, duplicates: 2 });
    assert.deepEqual(
      started.invalid.map((i: { index: number }) => i.index),
      [151],
    );
    const done = await waitFor(started.processId, (v) => v.state === 'COMPLETED' && v.counts.delivery.delivered === 150);
    assert.equal(done.counts.sent, 150);
    assert.equal(done.counts.invalid, 1);
    assert.equal(done.progress, 1);
    const stats = await conversationStats(h, appId);
    assert.equal(stats.duplicateRecipients, 0);

    // The same key: the same campaign, whether running or ended; another request under it: 409.
    const again = await start({ key, recipients, defaultCountry: 'SE' });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().campaignId, started.campaignId);
    assert.equal((await start({ key, recipients: numbers(3) })).statusCode, 409);

    // Per-recipient outcomes, paged with a signed token.
    const page1 = await h.api({ method: 'GET', url: `/v1/campaigns/${enc(started.processId)}/recipients?pageSize=100` });
    assert.equal(page1.statusCode, 200);
    assert.equal(page1.json().recipients.length, 100);
    const page2 = await h.api({
      method: 'GET',
      url: `/v1/campaigns/${enc(started.processId)}/recipients?pageSize=100&pageToken=${page1.json().nextPageToken}`,
    });
    assert.equal(page2.json().recipients.length, 51);
    assert.equal(page2.json().recipients.at(-1).status, 'invalid');
    assert.equal(page2.json().nextPageToken, '');
    const forged = await h.api({
      method: 'GET',
      url: `/v1/campaigns/${enc(started.processId)}/recipients?pageToken=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    });
    assert.equal(forged.statusCode, 400);
    assert.equal(forged.json().error.details[0].field, 'query.pageToken');

    // An ended campaign refuses control.
    const pause = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(started.processId)}/pause`, payload: {} });
    assert.equal(pause.statusCode, 409, pause.body);

    // Listed under its kind's path (visibility catches up within a few seconds); never under the other kind's.
    const listed = async (path: string) =>
      ((await h.api({ method: 'GET', url: path })).json().processes as { processId: string }[]).some((p) => p.processId === started.processId);
    const deadline = Date.now() + 15_000;
    while (!(await listed('/v1/campaigns/conversation?state=COMPLETED')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    assert.ok(await listed('/v1/campaigns/conversation?state=COMPLETED'), 'listed as a completed conversation campaign');
    assert.equal(await listed('/v1/campaigns/mms'), false, 'not an MMS campaign');
  });

  test('bad input names the field and starts nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ appId: 'not-a-ulid', recipients: ['+46700000001'] }, 'body.appId'],
      [{ recipients: [] }, 'body.recipients'],
      [{ recipients: ['+46700000001'], rate: 0 }, 'body.rate'],
      [{ recipients: ['+46700000001'], region: 'ap' }, 'body.region'],
    ];
    for (const [body, field] of cases) {
      const res = await start(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      assert.ok(
        res.json().error.details.some((d: { field: string }) => d.field.startsWith(field)),
        res.body,
      );
    }
    const mms = await h.api({
      method: 'POST',
      url: '/v1/campaigns/mms',
      payload: { serviceId: 's1', subject: 'Hi', slides: [{ image: 'ftp://x/y.png' }], recipients: ['+15551234567'] },
    });
    assert.equal(mms.statusCode, 422, mms.body);
    const fields = mms
      .json()
      .error.details.map((d: { field: string }) => d.field)
      .sort();
    assert.deepEqual(fields, ['body.fallbackSmsText', 'body.slides[0].image']);
  });

  test('pause, rate and resume through the API', async () => {
    const slow = await createApp(h, 20);
    const res = await h.api({
      method: 'POST',
      url: '/v1/campaigns/conversation',
      payload: { appId: slow, region: 'eu', message: { text: 'Hi' }, recipients: numbers(200, 30_000) },
    });
    const { processId } = res.json();
    await waitFor(processId, (v) => v.state === 'SENDING' && v.counts.sent > 10);
    const paused = await h.api({
      method: 'POST',
      url: `/v1/campaigns/${enc(processId)}/pause`,
      headers: { 'idempotency-key': 'k1' },
      payload: { reason: 'check' },
    });
    assert.equal(paused.statusCode, 200, paused.body);
    assert.equal(paused.json().state, 'PAUSED');
    const rate = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/rate`, payload: { rate: 1_000 } });
    assert.equal(rate.json().rate, 20);
    const resumed = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/resume`, payload: {} });
    assert.equal(resumed.json().state, 'SENDING');
    const cancelled = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/cancel`, payload: {} });
    assert.equal(cancelled.json().state, 'CANCELLED');
    const done = await waitFor(processId, (v) => v.state === 'CANCELLED');
    assert.equal(done.counts.sent + done.counts.cancelled, 200);
  });

  test('the conversation delivery intake checks the signature and accepts any envelope; a replay changes nothing', async () => {
    const post = (body: unknown, opts: { nonce?: string; secret?: string; timestamp?: number } = {}) => {
      const raw = JSON.stringify(body);
      const nonce = opts.nonce ?? randomUUID();
      const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
      const h_ = CONVERSATION_WEBHOOK_HEADERS;
      return h.app.inject({
        method: 'POST',
        url: '/callbacks/conversation',
        payload: raw,
        headers: {
          'content-type': 'application/json',
          [h_.nonce]: nonce,
          [h_.timestamp]: timestamp,
          [h_.algorithm]: 'HmacSHA256',
          [h_.signature]: conversationWebhookSignature(opts.secret ?? SANDBOX_CONVERSATION_WEBHOOK_SECRET, raw, nonce, timestamp),
        },
      });
    };
    assert.equal((await post({ app_id: appId, message_inbound: {} })).json().ignored, 'not a delivery report');
    assert.equal(
      (await post({ message_delivery_report: { metadata: 'rf:01ARZ3NDEKTSV4RRFFQ69G5FAV:1', status: 'DELIVERED' } })).json().ignored,
      'unknown campaign recipient',
    );
    assert.equal((await post({}, { secret: 'wrong-secret-123' })).statusCode, 401);
    assert.equal((await post({}, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).statusCode, 401);
    const nonce = randomUUID();
    assert.equal((await post({}, { nonce })).statusCode, 200);
    // A replay carries the same body: a report's is its event's repeat, dropped (test/api/callbacks/two-instances.test.ts).
    assert.deepEqual((await post({}, { nonce })).json(), { ignored: 'not a delivery report' }, 'a replay changes nothing');
  });

  test('MMS postbacks need the secret path token', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/callbacks/mms/not-the-token', payload: { code: 'N102' } });
    assert.equal(res.statusCode, 404);
    const ok = await h.app.inject({
      method: 'POST',
      url: `/callbacks/mms/${h.config.api.mmsPostbackToken}`,
      payload: { code: 'N102', 'client-reference': 'someone else' },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().ignored, 'not a relayflow campaign message');
  });
});
