// Provisioning area of the sandbox: the webhook body's shape. Minimal bodies carry only what the spec
// promises (trigger, comment, the resource's JSON as it was at the event), signed like full ones.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { type Body, waitFor, provisioningSandboxSuite, subscribe } from '../../helpers/sandbox-provisioning.js';

const template = (name: string) => ({ name, language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hi {{1}}' }] });
const TRIGGERS = ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_COMMENT_ADDED', 'CHATA_TEMPLATE_REJECTED', 'CHATB_SENDER_COMMENT_ADDED', 'CHATB_SENDER_REJECTED'];
// The receiver types events as full envelopes; minimal bodies are read as they are.
const raw = (e: unknown) => e as Body;

describe('provisioning sandbox: webhook envelope', () => {
  const { receiver, c } = provisioningSandboxSuite();

  test('full by default; minimal sends {trigger, comment?, resource} with the resource as it was at the event', async () => {
    await subscribe(c, receiver, TRIGGERS);
    assert.deepEqual((await c.control('GET', '/provisioning/webhook-envelope')).body, { shape: 'full', resourceAt: 'resource' });
    const set = await c.control('PUT', '/provisioning/webhook-envelope', { shape: 'minimal' });
    assert.deepEqual(set.body, { shape: 'minimal', resourceAt: 'resource' });
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20, comment: 'Looks fine' } });
    const id = (await c.api('POST', '/chata/templates', template('minimal_one'))).body.id as string;
    await waitFor(() => receiver.received.length === 2, 'comment and approval');
    const [comment, approved] = receiver.received.map((r) => raw(r.event));
    assert.deepEqual(Object.keys(comment).sort(), ['comment', 'resource', 'trigger']);
    assert.equal(comment.comment, 'Looks fine');
    assert.equal(comment.resource.state, 'IN_PROGRESS', 'the JSON as it was when the comment came');
    assert.deepEqual(Object.keys(approved).sort(), ['resource', 'trigger']);
    assert.equal(approved.trigger, 'CHATA_TEMPLATE_APPROVED');
    assert.equal(approved.resource.id, id);
    assert.equal(approved.resource.state, 'APPROVED');
    assert.ok(
      receiver.received.every((r) => r.verified),
      'minimal bodies are signed',
    );
    const log = await c.control('GET', '/provisioning/events');
    assert.equal(log.body.events[1].event.sequence, 2, 'the event log keeps the full event');
    assert.deepEqual(log.body.events[1].body, approved, 'and the body as sent');
  });

  test("resourceAt puts the JSON under the type's name or at the top; a reset returns to full", async () => {
    await subscribe(c, receiver, TRIGGERS);
    await c.control('PUT', '/provisioning/webhook-envelope', { shape: 'minimal', resourceAt: 'type' });
    await c.control('PUT', '/provisioning/reviewer', { chatbSenders: { outcome: 'reject', delayMs: 20, comment: 'Not a real brand' } });
    const sender = (await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL' })).body;
    await waitFor(() => receiver.received.length === 1, 'the rejection');
    const rejected = raw(receiver.received[0]!.event);
    assert.deepEqual(Object.keys(rejected).sort(), ['comment', 'sender', 'trigger']);
    assert.equal(rejected.sender.id, sender.id);
    assert.equal(rejected.sender.state, 'REJECTED');

    await c.control('PUT', '/provisioning/webhook-envelope', { shape: 'minimal', resourceAt: 'top' });
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 20 } });
    const id = (await c.api('POST', '/chata/templates', template('minimal_top'))).body.id as string;
    await waitFor(() => receiver.received.length === 2, 'the approval');
    const top = raw(receiver.received[1]!.event);
    assert.equal(top.trigger, 'CHATA_TEMPLATE_APPROVED');
    assert.equal(top.id, id);
    assert.equal(top.state, 'APPROVED');
    assert.equal(top.eventId, undefined);

    assert.equal((await c.control('POST', '/reset')).status, 200);
    assert.deepEqual((await c.control('GET', '/provisioning/webhook-envelope')).body, { shape: 'full', resourceAt: 'resource' });
  });

  test('a bad setting is a 400 naming the field, and changes nothing', async () => {
    const bad = await c.control('PUT', '/provisioning/webhook-envelope', { shape: 'tiny', extra: 1 });
    assert.equal(bad.status, 400);
    const fields = (bad.body.error.details as { field: string }[]).map((v) => v.field).sort();
    assert.deepEqual(fields, ['extra', 'shape']);
    assert.equal((await c.control('GET', '/provisioning/webhook-envelope')).body.shape, 'full');
  });
});
