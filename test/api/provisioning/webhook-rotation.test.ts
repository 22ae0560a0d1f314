// Rotating the provisioning webhook secret with no event lost, against the sandbox: relayflow is configured with
// a new secret and the previous one until a time; the platform still signs with the previous one until a worker
// start (workers/callbacks.ts) updates the webhook. While events arrive: those signed with the previous secret are
// accepted inside the window and refused (401) after it, those signed with the new one are accepted, and the
// template's process gets every event the platform sent and reaches APPROVED from a webhook alone (no polling).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PROVISIONING_WEBHOOK_PATH } from '../../../contracts/callbacks.js';
import { createPlatformClients } from '../../../platform/index.js';
import { wireCallbacks } from '../../../workers/callbacks.js';
import { sleep } from '../../helpers/deadline.js';
import { uniqueName, useHarness } from '../../helpers/harness.js';
import { reviewerEvent, sandboxEvents, setReviewer, signedDelivery, start, templateBody, waitUntil, type View } from '../../helpers/provisioning.js';

const OLD = 'rotation-old-secret-1';
const NEW = 'rotation-new-secret-2';
/** From the harness's start: long enough for the steps inside it on a loaded machine, short enough to sit out. */
const WINDOW_MS = 20_000;

describe('provisioning webhook secret rotation', () => {
  let windowEnd = 0;
  const h = useHarness(() => {
    windowEnd = Date.now() + WINDOW_MS;
    return {
      env: {
        RELAYFLOW_PROVISIONING_WEBHOOK_SECRET: NEW,
        RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET: OLD,
        RELAYFLOW_PROVISIONING_WEBHOOK_PREVIOUS_SECRET_UNTIL: new Date(windowEnd).toISOString(),
        // Only webhooks move the process: a poll would hide a lost event.
        RELAYFLOW_PROVISIONING_POLL_INTERVAL_MS: '3600000',
      },
    };
  });
  const insideWindow = (what: string) => assert.ok(Date.now() < windowEnd - 1_000, `${what}: the harness took too long, the window is nearly over`);
  const post = (secret: string, body: unknown) => h.app.inject({ method: 'POST', url: PROVISIONING_WEBHOOK_PATH, ...signedDelivery(secret, body) });
  const comments = (v: View) => v.details.comments.map((c) => c.text);

  test('previous secret inside the window, refused after it; new secret throughout; every event reaches the process', async () => {
    const platform = createPlatformClients(h.config.platform).provisioning;
    const target = `${h.apiUrl}${PROVISIONING_WEBHOOK_PATH}`;
    // Before the rotation the platform signs with the secret relayflow had: the harness registered the webhook with
    // the new one, so it is set back to the old one here.
    const hook = (await platform.webhooks.list()).find((w) => w.target === target)!;
    await platform.webhooks.update(hook.id, { secret: OLD });

    // A template under review that only a webhook will approve.
    await setReviewer(h, { templates: { outcome: 'approve', delayMs: 3_600_000 } });
    const id = await start(h, '/v1/templates/chata', templateBody(uniqueName('rotate').replace(/-/g, '_')));
    const inReview = await waitUntil(h, id, (v) => v.state === 'IN_PROGRESS' && typeof v.details.templateId === 'string', 'under review');
    const templateId = inReview.details.templateId as string;
    const comment = (text: string) =>
      reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_COMMENT_ADDED', comment: text });

    // 1. The platform still holds the previous secret: its events are accepted inside the window.
    insideWindow('before the rotation');
    await comment('signed with the previous secret');
    await waitUntil(h, id, (v) => comments(v).includes('signed with the previous secret'), 'the event signed with the previous secret');

    // 2. A worker starts: the rotation is under way, so it gives the platform the new secret.
    const wiring = await wireCallbacks({ config: h.config, publicUrl: h.apiUrl, provisioning: platform, logger: h.app.log as never, retryDelaysMs: [100] });
    assert.equal(wiring.provisioningWebhook.status, 'registered');
    assert.match(wiring.provisioningWebhook.detail, new RegExp(`webhook ${hook.id} updated \\(secret\\)`));
    await comment('signed with the new secret');
    await waitUntil(h, id, (v) => comments(v).includes('signed with the new secret'), 'the event signed with the new secret');

    // A late delivery still signed with the previous secret (sent before the update) is accepted inside the window.
    insideWindow('a late delivery');
    const late = {
      trigger: 'CHATA_TEMPLATE_COMMENT_ADDED',
      channel: 'CHATA',
      resourceType: 'TEMPLATE',
      resourceId: templateId,
      comment: 'late, previous secret',
    };
    assert.equal((await post(OLD, late)).statusCode, 200);
    await waitUntil(h, id, (v) => comments(v).includes('late, previous secret'), 'the late event');

    // 3. After the window the previous secret is refused; the new one is not.
    await sleep(Math.max(0, windowEnd - Date.now() + 200));
    const refused = await post(OLD, { ...late, comment: 'after the window, previous secret' });
    assert.equal(refused.statusCode, 401, refused.body);
    assert.match(refused.body, /bad_signature/);
    assert.equal((await post(NEW, { ...late, comment: 'after the window, new secret' })).statusCode, 200);
    // Acknowledged is handed over, not yet applied: the next event is sent once this one is in, as above, so the
    // comments' order below is the order they were sent in.
    await waitUntil(h, id, (v) => comments(v).includes('after the window, new secret'), 'the event signed with the new secret after the window');
    await comment('from the platform after the window');
    await reviewerEvent(h, { resourceType: 'TEMPLATE', resourceId: templateId, trigger: 'CHATA_TEMPLATE_APPROVED' });

    // No event lost: the process reaches its end state from the webhook, with every event the platform sent.
    const approved = (await h.waitForState(id, 'APPROVED')) as unknown as View;
    const sent = await sandboxEvents(h, templateId);
    assert.ok(sent.length >= 4, `the platform's events: ${sent.length}`);
    assert.ok(
      sent.every((r) => r.delivery === 'sent'),
      JSON.stringify(sent.map((r) => r.delivery)),
    );
    // An event relayflow acknowledged is handed to Temporal, not yet applied: the approval can be applied before an
    // earlier comment that came by another path (CI saw one missing at the moment of APPROVED). Each must arrive.
    const missing = (v: View) => {
      const received = new Set(v.details.events.map((e) => e.eventId));
      return sent.map((r) => r.event.eventId).filter((e) => !received.has(e));
    };
    const settled = await waitUntil(h, id, (v) => missing(v).length === 0, 'every event the platform sent', 20_000);
    assert.deepEqual(missing(settled), [], 'every event the platform sent reached the process');
    assert.deepEqual(
      comments(approved).filter((c) => /secret|window/.test(c)),
      [
        'signed with the previous secret',
        'signed with the new secret',
        'late, previous secret',
        'after the window, new secret',
        'from the platform after the window',
      ],
    );
  });
});
