// A customer onboarded into its own subproject, end to end through the API against the sandbox: its sender,
// template and webhook are made in the subproject with the parent project's key, a cancel undoes them there, and a
// campaign sends through the bundle's conversation app, which lives in the subproject only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StepView } from '../../../processes/onboarding/onboarding/contract.js';
import { PROVISIONING_WEBHOOK_PATH } from '../../../contracts/callbacks.js';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness, uniqueName } from '../../helpers/harness.js';
import { readOr404, sandboxRequests, setReviewer, templateBody, view, waitUntil, type View } from '../../helpers/provisioning.js';
import { conversationStats, numbers } from '../../helpers/campaigns.js';

const steps = (v: View) => (v.details as unknown as { steps: StepView[] }).steps;
const step = (v: View, name: string) => steps(v).find((s) => s.name === name)!;

describe('a customer onboarded into its subproject', () => {
  const h = useHarness({ env: { RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '1000' } });

  function plan(key: string, reviewDelayMs: number) {
    return {
      key,
      subproject: { displayName: uniqueName('team') },
      bundle: { displayName: 'Acme', region: 'EU' },
      webhook: { target: `${h.apiUrl}${PROVISIONING_WEBHOOK_PATH}`, secret: h.config.api.provisioningWebhookSecret! },
      chatbSenders: [{ step: 'chatb', displayName: uniqueName('Brand'), categoryCode: 'RETAIL' }],
      templates: [{ step: 'welcome', sender: 'chatb', ...templateBody(uniqueName('welcome').replace(/-/g, '_')) }],
      reviewDelayMs,
    };
  }

  async function start(key: string, reviewDelayMs: number): Promise<string> {
    await setReviewer(h, { chatbSenders: { outcome: 'activate', delayMs: reviewDelayMs }, templates: { outcome: 'approve', delayMs: reviewDelayMs } });
    const { reviewDelayMs: _, ...body } = plan(key, reviewDelayMs);
    const res = await h.api({ method: 'POST', url: '/v1/onboardings', payload: body });
    assert.equal(res.statusCode, 202, res.body);
    return res.json<{ processId: string }>().processId;
  }

  test("its sender, template and webhook are made in its subproject, and a campaign sends through its bundle's app there", async () => {
    const id = await start(uniqueName('sub-onb'), 200);
    const done = await waitUntil(h, id, (v) => v.state === 'COMPLETED' || v.state === 'WAITING_FOR_CALLER', 'the onboarding to end', 120_000);
    assert.equal(done.state, 'COMPLETED', JSON.stringify(steps(done)));
    const subprojectId = step(done, 'subproject').resource.subprojectId!;
    const senderId = step(done, 'chatb').resource.senderId!;
    const templateId = step(done, 'welcome').resource.templateId!;
    const webhookId = step(done, 'webhook').resource.webhookId!;
    assert.ok(subprojectId && senderId && templateId && webhookId, JSON.stringify(steps(done)));

    // In the subproject, read with the parent project's key; not in the parent project.
    const parent = createPlatformClients(h.config.platform).provisioning;
    const sub = parent.forProject(subprojectId);
    assert.equal((await sub.chatbSenders.get(senderId)).state, 'ACTIVE');
    assert.equal((await sub.chatbTemplates.get(templateId)).state, 'APPROVED');
    assert.ok((await sub.webhooks.list()).some((w) => w.id === webhookId));
    assert.equal(await readOr404(() => parent.chatbSenders.get(senderId)), 404);
    assert.equal(await readOr404(() => parent.chatbTemplates.get(templateId)), 404);
    // Every create went to the subproject's path.
    for (const path of ['chatb/senders', 'chatb/templates', 'webhooks']) {
      const creates = await sandboxRequests(h, 'POST', `/projects/${subprojectId}/${path}`);
      assert.ok(
        creates.some((r) => r.status < 300),
        `a ${path} create in the subproject`,
      );
    }
    // The sender's process says where its sender lives.
    const senderView = await view(h, step(done, 'chatb').processId!);
    assert.equal((senderView.details as { projectId?: string }).projectId, subprojectId);

    // The bundle's conversation app is in the subproject: a campaign sends through it there.
    const bundle = await view(h, step(done, 'bundle').processId!);
    const appId = (bundle.details as { convApp?: { id: string } }).convApp!.id;
    const recipients = numbers(5, 7300);
    /** A campaign through the app, named in `projectId` (the platform project when absent), once it has ended. */
    const campaign = async (projectId?: string) => {
      const res = await h.api({
        method: 'POST',
        url: '/v1/campaigns/conversation',
        payload: { appId, ...(projectId ? { projectId } : {}), region: 'eu', channel: 'SMS', message: { text: 'Welcome aboard' }, recipients },
      });
      assert.equal(res.statusCode, 202, res.body);
      const id = res.json<{ processId: string }>().processId;
      return waitUntil(h, id, (v) => ['COMPLETED', 'FAILED'].includes(v.state), 'the campaign to end', 60_000);
    };
    const sent = await campaign(subprojectId);
    assert.equal(sent.state, 'COMPLETED', JSON.stringify(sent.history));
    const stats = await conversationStats(h, appId);
    assert.deepEqual([stats.accepted, stats.distinctRecipients], [5, 5]);
    // Named in the parent project, the same app is not there: the campaign fails before it sends anything.
    const failed = await campaign();
    assert.equal(failed.state, 'FAILED');
    assert.match(failed.history.at(-1)!.reason!, /not found/i);
    assert.equal((await conversationStats(h, appId)).accepted, 5);
  });

  test('a cancel undoes what the onboarding made in the subproject, there', async () => {
    const id = await start(uniqueName('sub-cancel'), 600_000);
    // The sender is made and waits in review: the step learns its ID from the child's status only when it is undone.
    const running = await waitUntil(h, id, (v) => step(v, 'chatb').state === 'RUNNING' && step(v, 'webhook').state === 'SUCCEEDED', 'the sender step', 90_000);
    const subprojectId = step(running, 'subproject').resource.subprojectId!;
    const made = await waitUntil(h, step(running, 'chatb').processId!, (v) => typeof v.details.senderId === 'string', 'the sender made', 60_000);
    const senderId = made.details.senderId as string;
    const sub = createPlatformClients(h.config.platform).provisioning.forProject(subprojectId);
    assert.notEqual(await readOr404(() => sub.chatbSenders.get(senderId)), 404, 'the sender was made in the subproject');
    const res = await h.api({
      method: 'POST',
      url: `/v1/onboardings/${encodeURIComponent(id)}/cancel`,
      payload: { reason: 'customer left' },
      headers: { 'idempotency-key': uniqueName('cancel') },
    });
    assert.ok([200, 202].includes(res.statusCode), res.body);
    const cancelled = await waitUntil(h, id, (v) => v.state === 'CANCELLED', 'cancelled', 60_000);
    assert.equal(step(cancelled, 'chatb').compensation?.undone, true, JSON.stringify(step(cancelled, 'chatb')));
    assert.equal(await readOr404(() => sub.chatbSenders.get(senderId)), 404, 'the sender is gone from the subproject');
    assert.equal((await sub.webhooks.list()).length, 0, "the subproject's webhook, made by this onboarding, is gone");
  });
});
