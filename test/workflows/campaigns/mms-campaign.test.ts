// MMS campaigns against the sandbox on the real Temporal server: E113 treated as "slow down", the saved
// template sent per recipient, lost answers settled by the postback that names them, and a campaign whose
// media the platform cannot fetch paused with the reason.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MMS_POSTBACK_PATH } from '../../../contracts/callbacks.js';
import { useHarness, type Harness } from '../../helpers/harness.js';
import { mmsStats, numbers, sandboxJson, startCampaign, waitForCampaign, waitForCounts } from '../../helpers/campaigns.js';

describe('MMS campaign', () => {
  // relayflow believes the account takes 60/s; the sandbox's account takes 10 (low enough that relayflow
  // exceeds it even on a loaded machine, where 25 was not always reached): E113 has to slow it down.
  // The request timeout is 8 s. At 1 s, loaded suites four times ended the first campaign with 80 to 99 of 100 sends
  // accepted, and at 3 s once (load 16-20) with 94: 6 sends timed out before the sandbox in this starved process took
  // them (119 requests = 94 accepted + 25 refused), and with no look-up for MMS a send whose answer is lost is reported
  // unconfirmed, never sent again. The assertion prints the history to tell. Lost answers are held 12 s, past it.
  const h = useHarness(
    {
      env: {
        PLATFORM_REQUEST_TIMEOUT_MS: '8000',
        RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '50',
        RELAYFLOW_MMS_THROUGHPUT_PER_SECOND: '60',
        RELAYFLOW_CAMPAIGN_IN_DOUBT_WAIT_MS: '20000',
      },
    },
    async (h) => {
      await sandboxJson(h, 'PUT', '/_sandbox/mms/account', { throughputPerSecond: 10 });
    },
  );

  const mms = (h: Harness, extra: Record<string, unknown> = {}) => ({
    serviceId: 'svc-1',
    subject: 'Spring sale',
    fallbackSmsText: 'See our sale',
    slides: [{ text: 'Spring sale', image: `${h.sandbox.url}/_sandbox/mms/media/sale.png` }],
    ...extra,
  });

  test('sends each recipient once through E113 throttling, and postbacks give the delivery', async () => {
    const before = await mmsStats(h);
    // 100 recipients in chunks of 50: two chunks, about 10 s at the account's limit.
    const { processId, campaignId } = await startCampaign(h, { kind: 'mms-campaign', recipients: numbers(100, 100), mms: mms(h) });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED', 'PAUSED'], 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await mmsStats(h);
    assert.equal(stats.accepted - before.accepted, 100, JSON.stringify({ before, stats, history: done.history, details: done.details }));
    assert.equal(stats.duplicateRecipients, 0);
    assert.ok(stats.refusedE113 > before.refusedE113, 'the account limit was hit and honoured');
    const counts = await waitForCounts(h, campaignId, (c) => (c.delivery.delivered ?? 0) === 100);
    assert.equal(counts.byStatus.sent, 100);
  });

  test('a saved template is saved once and sent per recipient', async () => {
    const before = await mmsStats(h);
    const { processId } = await startCampaign(h, { kind: 'mms-campaign', recipients: numbers(60, 1000), mms: mms(h, { useSavedTemplate: true }) });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED', 'PAUSED'], 60_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    assert.ok(done.details.savedMmsId);
    const stats = await mmsStats(h);
    assert.equal(stats.saved - before.saved, 1);
    assert.equal(stats.accepted - before.accepted, 60);
    assert.equal(stats.duplicateRecipients, 0);
  });

  test('answers lost after the platform accepted are settled by their postbacks, never sent again', async () => {
    await sandboxJson(h, 'PUT', '/_sandbox/mms/send-faults', { acceptThenDelayMs: 12_000, count: 3 });
    const before = await mmsStats(h);
    const { processId, campaignId } = await startCampaign(h, { kind: 'mms-campaign', recipients: numbers(40, 2000), mms: mms(h) });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED'], 90_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await mmsStats(h);
    assert.equal(stats.accepted - before.accepted, 40);
    assert.equal(stats.duplicateRecipients, 0);
    const counts = (await h.store.counts(campaignId))!;
    assert.equal(counts.byStatus.sent, 40, JSON.stringify(counts));
    assert.equal(counts.byStatus.unconfirmed, 0);
  });

  test('sends in doubt that no postback confirms: SETTLING listed while they wait, then reported unconfirmed, not sent again', async () => {
    // Postbacks go nowhere for this campaign; 2 answers are lost after the platform accepted.
    await sandboxJson(h, 'PUT', '/_sandbox/mms/account', { postbackUrl: 'http://127.0.0.1:9/nowhere', postbackRetries: 0 });
    await sandboxJson(h, 'PUT', '/_sandbox/mms/send-faults', { acceptThenDelayMs: 12_000, count: 2 });
    try {
      const before = await mmsStats(h);
      const { processId, campaignId } = await startCampaign(h, {
        kind: 'mms-campaign',
        recipients: numbers(10, 4000),
        mms: mms(h),
        settings: { inDoubtWaitMs: 2_000 },
      });
      const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED', 'PAUSED'], 60_000);
      assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
      assert.deepEqual(
        done.history.map((c) => c.state),
        ['PREPARING', 'SENDING', 'SETTLING', 'COMPLETED'],
      );
      assert.match(done.history.at(-2)!.reason!, /every recipient has been sent or refused; 2 sends whose answer was lost wait for a postback/);
      assert.match(done.history.at(-1)!.reason!, /^2 sends whose answer was lost were not confirmed by a postback: reported unconfirmed, not sent again/);
      const stats = await mmsStats(h);
      assert.equal(stats.accepted - before.accepted, 10);
      assert.equal(stats.duplicateRecipients, 0);
      const counts = (await h.store.counts(campaignId))!;
      assert.deepEqual([counts.byStatus.sent, counts.byStatus.unconfirmed], [8, 2], JSON.stringify(counts));
    } finally {
      // Back to the harness's postback URL and retries.
      await sandboxJson(h, 'PUT', '/_sandbox/mms/account', {
        postbackUrl: `${h.apiUrl}${MMS_POSTBACK_PATH}/${h.config.api.mmsPostbackToken}`,
        postbackRetries: 5,
      });
    }
  });

  test('media the platform cannot fetch pauses the campaign with the reason', async () => {
    const { processId } = await startCampaign(h, {
      kind: 'mms-campaign',
      recipients: numbers(5, 3000),
      mms: mms(h, { slides: [{ image: `${h.sandbox.url}/_sandbox/mms/media-chunked/x.png` }] }),
    });
    const done = await waitForCampaign(h, processId, ['PAUSED', 'FAILED', 'COMPLETED']);
    assert.equal(done.state, 'PAUSED');
    assert.match(done.history.at(-1)!.reason!, /E227|Content-Length/);
    assert.equal(done.details.pausedBy, 'platform');
  });
});
