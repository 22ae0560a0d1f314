// Provisioning area of the sandbox: the edit of a template in use (APPROVED, PAUSED, DISABLED) waits as its
// pendingChange while the approved version stays in use; it is reviewed apart (the decision told by a comment
// event), and DELETE .../templates/{id}/changes drops it: 404 "no pending changes exist" when there is none.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../../helpers/deadline.js';
import { type Body, waitFor, provisioningSandboxSuite, subscribe } from '../../helpers/sandbox-provisioning.js';

const BODY = [{ type: 'BODY', text: 'Hello {{1}}', example: { body_text: [['Ana']] } }];
const EDIT = [{ type: 'BODY', text: 'Hi {{1}}, it shipped', example: { body_text: [['Ana']] } }];

describe('provisioning sandbox: template pending changes', () => {
  const { receiver, c } = provisioningSandboxSuite();
  const eventsOf = (id: string) => receiver.received.filter((r) => r.event.resourceId === id).map((r) => r.event);

  async function approvedTemplate(name: string): Promise<Body> {
    const t = (await c.api('POST', '/chata/templates', { name, language: 'en_US', category: 'UTILITY', components: BODY })).body;
    await waitFor(() => eventsOf(t.id).some((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED'), 'APPROVED');
    return t;
  }

  test('an edit of an APPROVED template is pending and reviewed apart; approved, the template takes it', async () => {
    await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_REJECTED', 'CHATA_TEMPLATE_COMMENT_ADDED']);
    const t = await approvedTemplate('order_shipped');
    // A review of the change long enough for the second PATCH to find it still running, however slow the machine.
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 1_000 } });
    const edited = await c.api('PATCH', `/chata/templates/${t.id}`, { components: EDIT });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.deepEqual([edited.body.state, edited.body.version, edited.body.components], ['APPROVED', 1, BODY], 'the version in use');
    assert.deepEqual([edited.body.pendingChange.state, edited.body.pendingChange.version, edited.body.pendingChange.components], ['IN_PROGRESS', 2, EDIT]);
    const busy = await c.api('PATCH', `/chata/templates/${t.id}`, { components: BODY });
    assert.equal(busy.body.errorCode, 'template_not_updatable');
    await waitFor(() => eventsOf(t.id).some((e) => e.trigger === 'CHATA_TEMPLATE_COMMENT_ADDED'), 'the decision');
    const after = (await c.api('GET', `/chata/templates/${t.id}`)).body;
    assert.deepEqual([after.state, after.version, after.components, after.pendingChange], ['APPROVED', 2, EDIT, undefined]);
    assert.equal(eventsOf(t.id).filter((e) => e.trigger === 'CHATA_TEMPLATE_APPROVED').length, 1, 'no second approval of the template itself');
  });

  test('a rejected change stays REJECTED beside the version in use; DELETE .../changes drops it, then 404', async () => {
    await subscribe(c, receiver, ['CHATA_TEMPLATE_APPROVED', 'CHATA_TEMPLATE_REJECTED', 'CHATA_TEMPLATE_COMMENT_ADDED']);
    const t = await approvedTemplate('order_late');
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'reject', rejectionCode: 'SCAM', delayMs: 20 } });
    await c.api('PATCH', `/chata/templates/${t.id}`, { components: EDIT });
    await waitFor(() => eventsOf(t.id).some((e) => e.trigger === 'CHATA_TEMPLATE_COMMENT_ADDED'), 'the decision');
    const rejected = (await c.api('GET', `/chata/templates/${t.id}`)).body;
    assert.deepEqual([rejected.state, rejected.pendingChange.state, rejected.pendingChange.rejectionCode], ['APPROVED', 'REJECTED', 'SCAM']);
    assert.ok(!eventsOf(t.id).some((e) => e.trigger === 'CHATA_TEMPLATE_REJECTED'), 'the template itself was not rejected');

    const dropped = await c.api('DELETE', `/chata/templates/${t.id}/changes`);
    assert.equal(dropped.status, 200);
    assert.deepEqual([dropped.body.state, dropped.body.components, dropped.body.pendingChange], ['APPROVED', BODY, undefined]);
    const again = await c.api('DELETE', `/chata/templates/${t.id}/changes`);
    assert.equal(again.status, 404);
    assert.equal(again.body.errorCode, 'not_found');
    assert.equal(again.body.message, `No pending changes exist for template ${t.id}`);
    assert.equal((await c.api('DELETE', '/chata/templates/nope/changes')).body.message, 'Template nope not found');
  });

  test('a REJECTED template is edited in place as before: IN_PROGRESS, version 2, no pending change', async () => {
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'reject', rejectionCode: 'INVALID_FORMAT', delayMs: 20 } });
    const t = (await c.api('POST', '/chata/templates', { name: 'order_again', language: 'en_US', category: 'UTILITY', components: BODY })).body;
    await pollUntil(async () => (await c.api('GET', `/chata/templates/${t.id}`)).body.state === 'REJECTED', 'REJECTED');
    const edited = (await c.api('PATCH', `/chata/templates/${t.id}`, { components: EDIT })).body;
    assert.deepEqual([edited.state, edited.version, edited.pendingChange], ['IN_PROGRESS', 2, undefined]);
  });
});
