// The sandbox's phone that replies: POST /_sandbox/conversation/apps/{appId}/inbound makes a signed MESSAGE_INBOUND go
// to every webhook of the app subscribed to it (and to no other), shaped as the public reference's inbound message; its
// counts show replies made with no subscriber and duplicated by the webhook faults; bad input names the field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conversationSuite, fieldsOf, newApp, SECRET, sleep, waitFor, type Client } from '../../helpers/sandbox-conversation.js';

async function hook(c: Client, app: string, url: string, triggers: string[]): Promise<void> {
  const res = await c.api('POST', '/webhooks', { app_id: app, target: url, target_type: 'HTTP', secret: SECRET, triggers });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

describe('conversation sandbox: replies (MESSAGE_INBOUND)', () => {
  const { c, receiver } = conversationSuite();

  test('a reply goes, signed, to the webhooks subscribed to MESSAGE_INBOUND only', async () => {
    const app = await newApp(c, 'us', 10);
    await hook(c, app, `${receiver.url}/inbound`, ['MESSAGE_INBOUND']);
    await hook(c, app, `${receiver.url}/delivery-only`, ['MESSAGE_DELIVERY']);
    const res = await c.control('POST', `/conversation/apps/${app}/inbound`, { from: '+46700073001', text: 'STOP' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitFor(() => receiver.received.length >= 1, 'the reply');
    await sleep(50);
    assert.equal(receiver.received.length, 1, 'none to the webhook without MESSAGE_INBOUND');
    const d = receiver.received[0]!;
    assert.equal(d.verified, true, d.reason);
    assert.equal(d.body.app_id, app);
    assert.equal(d.body.message.id, res.body.messageId);
    assert.equal(d.body.message.direction, 'TO_APP');
    assert.deepEqual(d.body.message.contact_message, { text_message: { text: 'STOP' } });
    assert.deepEqual(d.body.message.channel_identity, { channel: 'SMS', identity: '+46700073001', app_id: app });
    assert.equal(d.body.message.accept_time, res.body.acceptedTime);
  });

  test('counted: made, with no subscriber, duplicated by the webhook faults', async () => {
    const quiet = await newApp(c, 'us', 10);
    const before = (await c.control('GET', '/conversation/inbound')).body;
    await c.control('POST', `/conversation/apps/${quiet}/inbound`, { from: '+46700073002', text: 'hello' });
    const app = await newApp(c, 'us', 10);
    await hook(c, app, `${receiver.url}/inbound`, ['MESSAGE_INBOUND']);
    assert.equal((await c.control('PUT', '/conversation/webhook-faults', { duplicate: 1 })).status, 200);
    const res = await c.control('POST', `/conversation/apps/${app}/inbound`, { from: '+46700073003', text: 'START', channel: 'RCS' });
    await waitFor(() => receiver.received.filter((r) => r.body.message?.id === res.body.messageId).length >= 2, 'the reply twice');
    const after = (await c.control('GET', '/conversation/inbound')).body;
    assert.equal(after.made - before.made, 2);
    assert.equal(after.unsubscribed - before.unsubscribed, 1);
    assert.equal(after.duplicated - before.duplicated, 1);
    await c.control('PUT', '/conversation/webhook-faults', {});
  });

  test('bad input names the field; an unknown app is 404', async () => {
    const app = await newApp(c, 'us', 10);
    const bad = await c.control('POST', `/conversation/apps/${app}/inbound`, { from: '0700', text: '', channel: 'FAX', extra: 1 });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.deepEqual(fieldsOf(bad.body).sort(), ['channel', 'extra', 'from', 'text']);
    assert.equal((await c.control('POST', '/conversation/apps/01ARZ3NDEKTSV4RRFFQ69G5FAV/inbound', { from: '+46700073004', text: 'x' })).status, 404);
  });
});
