// The conversation sandbox's billing switch: a blocked project's sends answer 403 BILLING_CREDIT_LIMIT_BREACHED
// (nothing accepted) until unblocked; reads still work; reset unblocks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conversationSuite, newApp, sendBody } from '../../helpers/sandbox-conversation.js';

describe('conversation sandbox: billing block', () => {
  const { c } = conversationSuite();
  const send = (app: string, to: string) => c.api('POST', '/messages:send', sendBody(app, to));

  test('blocked: sends answer 403 BILLING_CREDIT_LIMIT_BREACHED and are not accepted; unblocked: accepted again', async () => {
    const app = await newApp(c, 'us', 100);
    assert.deepEqual((await c.control('GET', '/conversation/billing')).body, { blockedProjects: [] });
    const blocked = await c.control('PUT', '/conversation/billing', { blocked: true });
    assert.equal(blocked.status, 200);
    assert.equal(blocked.body.blockedProjects.length, 1);

    const refused = await send(app, '+15550000001');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.status, 'BILLING_CREDIT_LIMIT_BREACHED');
    assert.equal(refused.body.error.code, 403);
    assert.equal((await c.api('GET', `/apps/${app}`)).status, 200, 'reads are not blocked');
    assert.equal((await c.control('GET', `/conversation/stats?appId=${app}`)).body.accepted, 0);

    assert.deepEqual((await c.control('PUT', '/conversation/billing', { blocked: false })).body, { blockedProjects: [] });
    assert.equal((await send(app, '+15550000001')).status, 200);
    assert.equal((await c.control('GET', `/conversation/stats?appId=${app}`)).body.accepted, 1);
  });

  test('bad input is refused naming the field; reset unblocks', async () => {
    assert.equal((await c.control('PUT', '/conversation/billing', {})).status, 400);
    assert.equal((await c.control('PUT', '/conversation/billing', { blocked: 'yes' })).status, 400);
    assert.equal((await c.control('PUT', '/conversation/billing', { blocked: true, projectId: 'nobody' })).status, 400);
    await c.control('PUT', '/conversation/billing', { blocked: true });
    assert.equal((await c.control('POST', '/reset')).status, 200);
    assert.deepEqual((await c.control('GET', '/conversation/billing')).body, { blockedProjects: [] });
  });
});
