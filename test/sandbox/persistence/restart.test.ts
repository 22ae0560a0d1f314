// A sandbox with a dataDir, closed and started again on the same directory (sandbox/core/persistence.ts):
// every area's records read back over HTTP with a token issued before the restart, the restored state is the
// saved one exactly, and what was pending at the close (a template review, a registration's next step, a
// verification's expiry, a queued message, an MMS final postback) still happens after it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox, type Sandbox } from '../../../sandbox/index.js';
import { account, BodyReceiver, bearerToken, client, eventually, savedStates, seedDataDir, tempDir, type Body } from '../../helpers/sandbox-persistence.js';

const P = account.projectId;
const SUB = `/subprojects/v1alpha1/projects/${P}/subprojects`;
const PROV = `/provisioning/v1/projects/${P}`;
const SID = `/senderid/v1/projects/${P}`;
const VER = '/verification/verification/v1/verifications';
const CONV = `/conversation/eu/v1/projects/${P}`;
const VOICE_CALLBACKS = `/voice-config/v1/configuration/callbacks/applications/${account.appKey}`;
/** Long enough that everything scheduled with it is still pending when the first sandbox closes. */
const PENDING_MS = 10_000;
const expiry = `00:00:${String(PENDING_MS / 1000).padStart(2, '0')}`;

describe('sandbox persistence: a restart on the same dataDir', () => {
  const receiver = new BodyReceiver();
  const data = tempDir('sandbox-persist-');
  before(() => seedDataDir(data.dir));
  const open: Sandbox[] = [];
  const start = async (opts: Parameters<typeof createSandbox>[0] = {}) => {
    const sb = await createSandbox({ dataDir: data.dir, subprojectReadyAfterMs: 0, ...opts });
    open.push(sb);
    await sb.listen();
    return sb;
  };

  before(() => receiver.start());
  after(async () => {
    for (const sb of open) await sb.close();
    await receiver.stop();
    data.remove();
  });

  test('remembers every area, accepts old tokens and carries on what was pending', async () => {
    // ---- The first run: one of everything, some of it pending. ----
    const first = await start({ provisioningReviewer: { templates: { delayMs: PENDING_MS } } });
    const token = await bearerToken(first.url);
    const c1 = client(first.url, token);

    const sub = await c1.oauth('POST', SUB, { displayName: 'kept across restarts' });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));

    const hook = await c1.oauth('POST', `${PROV}/webhooks`, {
      target: `${receiver.url}/provisioning`,
      secret: 'provisioning-secret',
      triggers: ['CHATA_TEMPLATE_APPROVED'],
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const template = await c1.oauth('POST', `${PROV}/chata/templates`, {
      name: 'order_update',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Your order has shipped.' }],
      status: 'SUBMIT',
    });
    assert.equal(template.status, 200, JSON.stringify(template.body));
    assert.equal(template.body.state, 'IN_PROGRESS');

    assert.equal((await c1.control('PUT', '/senderid/reviewer', { stepMs: PENDING_MS })).status, 200);
    assert.equal((await c1.oauth('PUT', `${SID}/callback-configuration`, { hmacSecret: 'senderid-secret-1' })).status, 200);
    const registration = await c1.oauth('POST', `${SID}/registrations`, {
      policyId: 'pol-au-alpha-aggregator',
      requestDetails: [
        {
          senderIdDetails: [{ senderId: 'ACME' }],
          additionalDetails: [{ companyName: 'Acme Pty Ltd', website: 'https://acme.example', email: 'ops@acme.example' }, { useCase: 'TRANSACTIONAL' }],
        },
      ],
    });
    assert.equal(registration.status, 200, JSON.stringify(registration.body));
    assert.equal(registration.body.status, 'IN_QUEUE');

    const longLived = await c1.signed('POST', VER, { identity: { type: 'number', endpoint: '+46700000001' }, method: 'sms' });
    assert.equal(longLived.status, 200, JSON.stringify(longLived.body));
    const expiring = await c1.signed('POST', VER, { identity: { type: 'number', endpoint: '+46700000002' }, method: 'sms', sms: { expiry } });
    assert.equal(expiring.status, 200, JSON.stringify(expiring.body));

    const app = await c1.oauth('POST', `${CONV}/apps`, { display_name: 'kept app' });
    assert.equal(app.status, 200, JSON.stringify(app.body));
    const appId = app.body.id as string;
    // Paused, so the message is still in the app's queue at the close (the pause is a test knob, not kept).
    assert.equal((await c1.control('PUT', `/conversation/apps/${appId}`, { paused: true })).status, 200);
    const convHook = await c1.oauth('POST', `${CONV}/webhooks`, {
      app_id: appId,
      target: `${receiver.url}/conversation`,
      secret: 'conversation-secret',
      triggers: ['MESSAGE_DELIVERY'],
    });
    assert.equal(convHook.status, 200, JSON.stringify(convHook.body));
    const sent = await c1.oauth('POST', `${CONV}/messages:send`, {
      app_id: appId,
      recipient: { identified_by: { channel_identities: [{ channel: 'SMS', identity: '+46700000123' }] } },
      message: { text_message: { text: 'hello' } },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const messageId = sent.body.message_id as string;

    assert.equal((await c1.control('PUT', '/mms/account', { postbackUrl: `${receiver.url}/mms`, postbackRetries: 0 })).status, 200);
    assert.equal((await c1.control('PUT', '/mms/delivery', { rules: [], delayMs: PENDING_MS })).status, 200);
    const mms = await c1.mms({
      action: 'sendmms',
      'service-id': 'svc-1',
      to: '15551230001',
      'message-subject': 'Sale',
      'fallback-sms-text': 'See it',
      slide: [{ 'message-text': 'Hello' }],
      'client-reference': 'ref-1',
    });
    assert.equal(mms.status, 200, JSON.stringify(mms.body));
    const trackingId = mms.body['tracking-id'] as string;
    await eventually(() => receiver.at('/mms').some((p: Body) => p['tracking-id'] === trackingId && p.code === 'N101'), 'the N101 postback');

    assert.equal((await c1.signed('POST', VOICE_CALLBACKS, { url: { primary: `${receiver.url}/voice` } })).status, 200);

    // Still pending when the first run ends.
    assert.equal((await c1.oauth('GET', `${PROV}/chata/templates/${template.body.id}`)).body.state, 'IN_PROGRESS');
    assert.equal((await c1.oauth('GET', `${SID}/registrations/${registration.body.id}`)).body.status, 'IN_QUEUE');
    assert.equal((await c1.signed('GET', `${VER}/id/${expiring.body.id}`)).body.status, 'PENDING');
    await first.close();
    assert.ok(!receiver.at('/mms').some((p: Body) => p.code === 'N102'), 'the final postback was still due at the close');
    const saved = savedStates(first);

    // ---- The second run, on the same directory, with none of the first run's settings. ----
    const second = await start();
    // Checked before any rescheduled work can run: the restored state is the saved one, indexes and all.
    assert.deepEqual(savedStates(second), saved);
    const c2 = client(second.url, token);

    // The token from before the restart still verifies; one from another sandbox does not.
    const stranger = await createSandbox();
    open.push(stranger);
    await stranger.listen();
    assert.equal((await client(second.url, await bearerToken(stranger.url)).oauth('GET', SUB)).status, 401);

    const list = await c2.oauth('GET', SUB);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(
      list.body.subprojects.map((s: Body) => s.projectId),
      [sub.body.projectId],
    );
    assert.deepEqual((await c2.oauth('GET', `${SUB}/${sub.body.projectId}`)).body, sub.body);

    assert.equal((await c2.oauth('GET', `${PROV}/webhooks`)).body.webhooks.length, 1);
    await eventually(
      async () => (await c2.oauth('GET', `${PROV}/chata/templates/${template.body.id}`)).body.state === 'APPROVED',
      'the rescheduled template review',
    );
    await eventually(
      () => receiver.at('/provisioning').some((e: Body) => e.trigger === 'CHATA_TEMPLATE_APPROVED' && e.resourceId === template.body.id),
      'the approval webhook',
    );

    const reg = await c2.oauth('GET', `${SID}/registrations/${registration.body.id}`);
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    assert.equal(reg.body.policyId, 'pol-au-alpha-aggregator');
    assert.equal(reg.body.senderId, 'ACME');
    assert.deepEqual((await c2.oauth('GET', `${SID}/callback-configuration`)).body, { hmacSecret: 'senderid-secret-1', projectId: P });
    await eventually(
      async () => (await c2.oauth('GET', `${SID}/registrations/${registration.body.id}`)).body.status !== 'IN_QUEUE',
      "the registration's rescheduled next step",
    );

    // Found by number (an index rebuilt by the restore) and verified with the code the phone got before the restart.
    const phone = await c2.control('GET', `/verification/phones/${encodeURIComponent('+46700000001')}`);
    const code = phone.body.messages.at(-1).code as string;
    const report = await c2.signed('PUT', `${VER}/number/${encodeURIComponent('+46700000001')}`, { method: 'sms', sms: { code } });
    assert.equal(report.status, 200, JSON.stringify(report.body));
    assert.equal(report.body.id, longLived.body.id);
    assert.equal(report.body.status, 'SUCCESSFUL');
    await eventually(async () => (await c2.signed('GET', `${VER}/id/${expiring.body.id}`)).body.status === 'FAIL', 'the rescheduled expiry');
    assert.equal((await c2.signed('GET', `${VER}/id/${expiring.body.id}`)).body.reason, 'Expired');

    assert.equal((await c2.oauth('GET', `${CONV}/apps/${appId}`)).body.display_name, 'kept app');
    assert.deepEqual(
      (await c2.oauth('GET', `${CONV}/messages?app_id=${appId}`)).body.messages.map((m: Body) => m.id),
      [messageId],
    );
    assert.equal((await c2.oauth('GET', `${CONV}/messages/${messageId}`)).status, 200);
    assert.equal((await c2.oauth('GET', `${CONV}/apps/${appId}/webhooks`)).body.webhooks.length, 1);
    const reports = () =>
      receiver
        .at('/conversation')
        .filter((r: Body) => r.message_delivery_report?.message_id === messageId)
        .map((r: Body) => r.message_delivery_report.status);
    await eventually(() => reports().includes('DELIVERED'), 'the queued message sent after the restart');
    assert.deepEqual(reports(), ['QUEUED_ON_CHANNEL', 'DELIVERED']);
    assert.equal((await c2.control('GET', `/conversation/stats?appId=${appId}`)).body.accepted, 1);

    await eventually(
      () => receiver.at('/mms').some((p: Body) => p['tracking-id'] === trackingId && p.code === 'N102'),
      'the MMS final postback after the restart',
    );
    assert.deepEqual(
      (await c2.control('GET', '/mms/messages?clientReference=ref-1')).body.messages.map((m: Body) => m.trackingId),
      [trackingId],
    );
    assert.equal((await c2.control('GET', '/mms/stats')).body.accepted, 1);

    assert.deepEqual((await c2.signed('GET', VOICE_CALLBACKS)).body, { url: { primary: `${receiver.url}/voice` } });
  });
});
