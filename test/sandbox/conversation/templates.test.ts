// The conversation sandbox's template messages: a chat channel's own template (approved in the provisioning area, or
// handed over with the control route), sent by name and language with its parameters, rendered as the channel shows it; a missing parameter, an unknown
// template or a malformed template_message is a 400 naming the field, and nothing is accepted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pollUntil } from '../../helpers/deadline.js';
import { conversationSuite, fieldsOf, newApp, type Client } from '../../helpers/sandbox-conversation.js';

const TEMPLATE = {
  channel: 'CHATA',
  name: 'order_shipped',
  language: 'en_US',
  components: [
    { type: 'HEADER', text: 'Order {{order}}' },
    { type: 'BODY', text: 'Hello {{name}}, order {{order}} has shipped' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track' }] },
  ],
};

const templateSend = (appId: string, identity: string, ref: Record<string, unknown>) => ({
  app_id: appId,
  recipient: { identified_by: { channel_identities: [{ channel: 'CHATA', identity }] } },
  message: { template_message: { channel_template: { CHATA: ref } } },
});

const accepted = async (c: Client, appId: string) => (await c.control('GET', `/conversation/stats?appId=${appId}`)).body.accepted as number;

describe('conversation sandbox: template messages', () => {
  const { c } = conversationSuite();

  test('a held template is rendered with its parameters; the message keeps what was sent', async () => {
    const put = await c.control('PUT', '/conversation/channel-templates', { templates: [TEMPLATE] });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const app = await newApp(c, 'eu', 100);
    const ref = { template_id: 'order_shipped', language_code: 'en_US', parameters: { name: 'Ana', order: 'A-1' } };
    const res = await c.api('POST', '/messages:send', templateSend(app, '+46700000001', ref), 'eu');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { messages } = (await c.control('GET', `/conversation/messages?appId=${app}`)).body;
    assert.equal(messages.length, 1);
    assert.equal(messages[0].rendered, 'Order A-1\nHello Ana, order A-1 has shipped');
    assert.deepEqual(messages[0].app_message, { template_message: { channel_template: { CHATA: ref } } });
  });

  test('a template approved in the provisioning area is held by the channel: sent without a hand-over; a draft is not', async () => {
    const app = await newApp(c, 'eu', 100);
    const components = [
      { type: 'HEADER', format: 'TEXT', text: 'Order {{order}}' },
      { type: 'BODY', text: 'Hello {{name}}, order {{order}} has shipped' },
    ];
    const create = { name: TEMPLATE.name, language: TEMPLATE.language, components };
    await c.control('PUT', '/provisioning/reviewer', { templates: { outcome: 'approve', delayMs: 300 } });
    const made = await c.provisioning('POST', '/chata/templates', { ...create, category: 'UTILITY' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const draft = await c.provisioning('POST', '/chata/templates', { ...create, name: 'order_draft', category: 'UTILITY', status: 'DRAFT' });
    assert.equal(draft.status, 200, JSON.stringify(draft.body));
    const ref = (name: string) => ({ template_id: name, language_code: 'en_US', parameters: { name: 'Ana', order: 'A-2' } });
    // Before the review ends the channel does not hold it.
    const early = await c.api('POST', '/messages:send', templateSend(app, '+46700000003', ref('order_shipped')), 'eu');
    assert.equal(early.status, 400, JSON.stringify(early.body));
    await pollUntil(async () => (await c.provisioning('GET', `/chata/templates/${made.body.id}`)).body.state === 'APPROVED', 'template APPROVED');
    const res = await c.api('POST', '/messages:send', templateSend(app, '+46700000003', ref('order_shipped')), 'eu');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { messages } = (await c.control('GET', `/conversation/messages?appId=${app}`)).body;
    assert.equal(messages[0].rendered, 'Order A-2\nHello Ana, order A-2 has shipped');
    const drafted = await c.api('POST', '/messages:send', templateSend(app, '+46700000004', ref('order_draft')), 'eu');
    assert.ok(fieldsOf(drafted.body).includes('message.template_message.channel_template.CHATA.template_id'), JSON.stringify(drafted.body));
    assert.equal(await accepted(c, app), 1);
  });

  test('a missing parameter, an unknown template or a malformed reference: 400 naming the field, nothing accepted', async () => {
    await c.control('PUT', '/conversation/channel-templates', { templates: [TEMPLATE] });
    const app = await newApp(c, 'eu', 100);
    const at = 'message.template_message.channel_template.CHATA';
    const cases: [Record<string, unknown>, string][] = [
      [{ template_id: 'order_shipped', language_code: 'en_US', parameters: { name: 'Ana' } }, `${at}.parameters.order`],
      [{ template_id: 'order_shipped', language_code: 'sv_SE', parameters: { name: 'Ana', order: '1' } }, `${at}.template_id`],
      [{ template_id: 'order_shipped', parameters: {} }, `${at}.language_code`],
      [{ template_id: 'order_shipped', language_code: 'en_US', parameters: { name: 7, order: '1' } }, `${at}.parameters.name`],
    ];
    for (const [ref, field] of cases) {
      const res = await c.api('POST', '/messages:send', templateSend(app, '+46700000002', ref), 'eu');
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.ok(fieldsOf(res.body).includes(field), `${field} in ${JSON.stringify(res.body)}`);
    }
    const twoChannels = { app_id: app, recipient: templateSend(app, '+46700000002', {}).recipient, message: { template_message: { channel_template: {} } } };
    const res = await c.api('POST', '/messages:send', twoChannels, 'eu');
    assert.ok(fieldsOf(res.body).includes('message.template_message.channel_template'), JSON.stringify(res.body));
    assert.equal(await accepted(c, app), 0);
  });

  test('bad channel templates are refused naming the field; a reset forgets them', async () => {
    const bad = await c.control('PUT', '/conversation/channel-templates', { templates: [{ ...TEMPLATE, channel: 'SMS' }] });
    assert.equal(bad.status, 400);
    assert.ok(fieldsOf(bad.body).includes('templates[0].channel'), JSON.stringify(bad.body));
    await c.control('PUT', '/conversation/channel-templates', { templates: [TEMPLATE] });
    await c.control('POST', '/reset');
    assert.deepEqual((await c.control('GET', '/conversation/channel-templates')).body, { templates: [] });
  });
});
