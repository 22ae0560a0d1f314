// Template campaigns on the real Temporal server against the sandbox, started directly (the API's checks have their
// own tests): the template is read again before the first send, and one no longer APPROVED fails the campaign with
// nothing sent; a template the channel refuses at send time pauses the campaign, and a resume sends each recipient
// once, with the values from its row in the store, rendered from the template the provisioning area approved.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resumeCampaignUpdate } from '../../../processes/campaigns/contract.js';
import { createPlatformClients } from '../../../platform/index.js';
import { pollUntil } from '../../helpers/deadline.js';
import { uniqueName, useHarness } from '../../helpers/harness.js';
import { setReviewer } from '../../helpers/provisioning.js';
import { conversationStats, createApp, numbers, sandboxJson, startCampaign, waitForCampaign } from '../../helpers/campaigns.js';

const components = [{ type: 'BODY' as const, text: 'Hi {{1}}, see you at {{2}}' }];

describe('template campaign', () => {
  const h = useHarness({ env: { RELAYFLOW_CAMPAIGN_CHUNK_SIZE: '10' } });
  const platform = () => createPlatformClients(h.config.platform).provisioning.chataTemplates;

  test('a template no longer APPROVED when the campaign prepares: FAILED with its state, nothing sent', async () => {
    const appId = await createApp(h, 50);
    const name = uniqueName('wf_draft').replace(/-/g, '_');
    const draft = await platform().create({ name, language: 'en_US', category: 'UTILITY', status: 'DRAFT', components });
    const { processId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: numbers(3, 71_000),
      params: [
        { 1: 'A', 2: 'x' },
        { 1: 'B', 2: 'y' },
        { 1: 'C', 2: 'z' },
      ],
      conversation: { appId, region: 'eu', channel: 'CHATA', template: { channel: 'CHATA', id: draft.id, name, language: 'en_US', placeholders: ['1', '2'] } },
    });
    const done = await waitForCampaign(h, processId, ['FAILED', 'COMPLETED']);
    assert.equal(done.state, 'FAILED');
    assert.match(done.history.at(-1)?.reason ?? '', /is DRAFT, not APPROVED: nothing was sent/);
    assert.equal((await conversationStats(h, appId)).requests, 0);
  });

  test('a template the channel refuses at send time pauses the campaign; resumed, each recipient is sent once with its values', async () => {
    const appId = await createApp(h, 50);
    const name = uniqueName('wf_tpl').replace(/-/g, '_');
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 50 } });
    const created = await platform().create({ name, language: 'en_US', category: 'UTILITY', components });
    await pollUntil(async () => (await platform().get(created.id)).state === 'APPROVED', `template ${name} APPROVED`, 10_000, 100);
    // The channel refuses the first send as it refuses a template it does not hold (the sandbox's own 400 for it).
    await sandboxJson(h, 'POST', '/_sandbox/faults', {
      area: 'conversation',
      method: 'POST',
      pathContains: '/messages:send',
      status: 400,
      count: 1,
      body: {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: `message.template_message.channel_template.CHATA.template_id: is not a CHATA template of this project in language en_US`,
          details: [],
        },
      },
    });
    const to = numbers(25, 72_000);
    const params = to.map((_, i) => ({ 1: `Name${i}`, 2: `${10 + i}:00` }));
    const { processId } = await startCampaign(h, {
      kind: 'conversation-campaign',
      recipients: to,
      params,
      conversation: {
        appId,
        region: 'eu',
        channel: 'CHATA',
        template: { channel: 'CHATA', id: created.id, name, language: 'en_US', placeholders: ['1', '2'] },
      },
    });
    const paused = await waitForCampaign(h, processId, ['PAUSED', 'COMPLETED', 'FAILED']);
    assert.equal(paused.state, 'PAUSED', JSON.stringify(paused.history));
    assert.match(paused.history.at(-1)?.reason ?? '', /template_id/);

    await h.client.workflow.getHandle(processId).executeUpdate(resumeCampaignUpdate, { args: [{ operationId: 'resume-1' }] });
    const done = await waitForCampaign(h, processId, ['COMPLETED', 'FAILED']);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(done.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients, stats.duplicateRecipients], [25, 25, 0]);
    const { messages } = await sandboxJson<{ messages: { identity: string; rendered?: string }[] }>(h, 'GET', `/_sandbox/conversation/messages?appId=${appId}`);
    const rendered = new Map(messages.map((m) => [m.identity, m.rendered]));
    to.forEach((n, i) => assert.equal(rendered.get(n), `Hi Name${i}, see you at ${10 + i}:00`));
  });
});
