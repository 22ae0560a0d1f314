// A campaign through the API against the sandbox, paused by the platform mid-send and resumed: a billing block
// (403 BILLING_CREDIT_LIMIT_BREACHED) pauses it saying to top up, a permission refusal (403 PERMISSION_DENIED) with
// its own reason; after the cause is gone a resume sends the rest, every recipient accepted exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BILLING_PAUSE_REASON } from '../../../processes/campaigns/workflow/campaign-state.js';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { conversationStats, createApp, numbers, sandboxJson, waitForCampaignView } from '../../helpers/campaigns.js';

const enc = encodeURIComponent;
const RECIPIENTS = 200;

interface CampaignView {
  state: string;
  history: { state: string; reason?: string }[];
  details: { pausedBy?: string; lastError?: string };
  counts: { sent: number; queued: number; failed: number };
}

describe('campaign paused by the platform through the API', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '50' } });
  });
  after(async () => h?.close());

  const waitFor = (processId: string, ok: (v: CampaignView) => boolean, timeoutMs?: number) => waitForCampaignView(h, processId, ok, timeoutMs);

  /** Starts a 200-recipient campaign at 20/s, refuses its sends once some were sent, lifts the refusal, resumes: the paused view. */
  async function pauseAndResume(offset: number, refuse: () => Promise<unknown>, lift: () => Promise<unknown>) {
    const appId = await createApp(h, 20);
    const res = await h.api({
      method: 'POST',
      url: '/v1/campaigns/conversation',
      payload: { appId, region: 'eu', message: { text: 'Hi' }, recipients: numbers(RECIPIENTS, offset) },
    });
    assert.equal(res.statusCode, 202, res.body);
    const { processId } = res.json();
    await waitFor(processId, (v) => v.state === 'SENDING' && v.counts.sent > 10);
    await refuse();
    const paused = await waitFor(processId, (v) => v.state === 'PAUSED');
    assert.equal(paused.details.pausedBy, 'platform');
    assert.ok(paused.counts.sent < RECIPIENTS && paused.counts.queued > 0, `recipients left to send: ${JSON.stringify(paused.counts)}`);
    assert.equal(paused.counts.failed, 0, 'a refused send is not a failed recipient');

    // The cause gone, a resume through the API sends what was left: nothing twice, nothing lost.
    await lift();
    const resumed = await h.api({ method: 'POST', url: `/v1/campaigns/${enc(processId)}/resume`, payload: {} });
    assert.equal(resumed.statusCode, 200, resumed.body);
    const done = await waitFor(processId, (v) => v.state === 'COMPLETED', 90_000);
    assert.equal(done.counts.sent, RECIPIENTS);
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [RECIPIENTS, RECIPIENTS, 0], 'each recipient accepted once');
    return paused;
  }

  test('a billing block pauses the campaign with the billing reason; topped up and resumed, it sends the rest once', async () => {
    const billing = (blocked: boolean) => sandboxJson(h, 'PUT', '/_sandbox/conversation/billing', { blocked });
    const paused = await pauseAndResume(
      40_000,
      () => billing(true),
      () => billing(false),
    );
    assert.equal(paused.history.at(-1)?.reason, BILLING_PAUSE_REASON);
    assert.match(paused.details.lastError ?? '', /BILLING_CREDIT_LIMIT_BREACHED/);
  });

  test('a permission refusal pauses it with its own reason, not the billing one', async () => {
    const paused = await pauseAndResume(
      50_000,
      () => sandboxJson(h, 'POST', '/_sandbox/faults', { area: 'conversation', pathContains: 'messages:send', status: 403, count: 100_000 }),
      () => sandboxJson(h, 'DELETE', '/_sandbox/faults'),
    );
    const reason = paused.history.at(-1)?.reason ?? '';
    assert.match(reason, /^the platform refused the campaign: .*PERMISSION_DENIED/);
    assert.doesNotMatch(reason, /BILLING|credit/);
  });
});
