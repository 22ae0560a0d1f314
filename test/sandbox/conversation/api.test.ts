// Conversation sandbox area over HTTP: apps per region, authentication, messages:send validation
// naming the field, contacts and conversations made on the first message, the message list (newest
// first, by identity, paged) and webhooks.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { account, conversationSuite, fieldsOf, newApp, sendBody, smsTo, type Body } from '../../helpers/sandbox-conversation.js';

const basic = { authorization: `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}` };

describe('conversation sandbox: apps, sending, listing, webhooks', () => {
  const { c } = conversationSuite();

  test('apps: create on a region (default outbound 20/s), list and read there, 404 elsewhere, 400 for a non-ULID app_id', async () => {
    const created = await c.api('POST', '/apps', { display_name: 'Campaigns', channel_credentials: [{ channel: 'SMS', static_bearer: { token: 'x' } }] }, 'eu');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const a = created.body;
    assert.match(a.id, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    assert.equal(a.region, 'EU');
    assert.equal(a.rate_limits.outbound, 20);
    assert.deepEqual(a.channel_credentials, [{ channel: 'SMS' }], 'credentials are not echoed');
    const fast = await c.api('POST', '/apps', { display_name: 'Fast', rate_limits: { outbound: 200 } }, 'eu');
    assert.equal(fast.body.rate_limits.outbound, 200);

    assert.deepEqual((await c.api('GET', `/apps/${a.id}`, undefined, 'eu')).body, a);
    assert.deepEqual(
      (await c.api('GET', '/apps', undefined, 'eu')).body.apps.map((x: Body) => x.id),
      [a.id, fast.body.id],
    );
    assert.deepEqual((await c.api('GET', '/apps', undefined, 'us')).body.apps, []);
    for (const region of ['us', 'br'] as const) {
      const wrong = await c.api('GET', `/apps/${a.id}`, undefined, region);
      assert.equal(wrong.status, 404);
      assert.equal(wrong.body.error.status, 'NOT_FOUND');
      assert.equal(wrong.body.error.code, 404);
    }
    const bad = await c.api('GET', '/apps/not-a-ulid', undefined, 'eu');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.status, 'INVALID_ARGUMENT');
    assert.deepEqual(fieldsOf(bad.body), ['app_id']);

    const invalid = await c.api('POST', '/apps', { rate_limits: { outbound: 0 }, channel_credentials: [{ channel: 'FAX' }], colour: 1 });
    assert.equal(invalid.status, 400);
    assert.deepEqual(fieldsOf(invalid.body).sort(), ['channel_credentials[0].channel', 'colour', 'display_name', 'rate_limits.outbound']);

    const ctl = await c.control('POST', '/conversation/apps', { region: 'BR', displayName: 'Ctl', outboundRate: 7 });
    assert.equal(ctl.status, 200);
    assert.equal(ctl.body.region, 'BR');
    assert.equal(ctl.body.rate_limits.outbound, 7);
    assert.equal((await c.api('GET', `/apps/${ctl.body.id}`, undefined, 'br')).status, 200);
    assert.deepEqual(fieldsOf((await c.control('POST', '/conversation/apps', { region: 'asia' })).body), ['region']);
  });

  test('authentication: no token 401, a key of another project 403, Basic works', async () => {
    const noAuth = await c.raw('GET', `${c.base('us')}/apps`);
    assert.equal(noAuth.status, 401);
    assert.equal(noAuth.body.error.status, 'UNAUTHENTICATED');
    const forged = await c.raw('GET', `${c.base('us')}/apps`, undefined, { authorization: 'Bearer not.a.token' });
    assert.equal(forged.status, 401);
    const foreign = await c.raw('GET', '/conversation/us/v1/projects/someone-else/apps', undefined, basic);
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.error.status, 'PERMISSION_DENIED');
    assert.equal((await c.raw('GET', `${c.base('us')}/apps`, undefined, basic)).status, 200);
  });

  test('messages:send refuses a missing or malformed field with a 400 naming it, and accepts nothing', async () => {
    const app = await newApp(c);
    const cases: [Body, string[]][] = [
      [{}, ['app_id', 'recipient', 'message']],
      [{ ...sendBody(app, '+15550001111'), app_id: 'nope' }, ['app_id']],
      [sendBody(app, '15550001111'), ['recipient.identified_by.channel_identities[0].identity']],
      [{ ...sendBody(app, '+15550001111'), recipient: { identified_by: { channel_identities: [] } } }, ['recipient.identified_by.channel_identities']],
      [
        { ...sendBody(app, '+15550001111'), recipient: { identified_by: { channel_identities: [{ channel: 'PIGEON', identity: 'x' }] } } },
        ['recipient.identified_by.channel_identities[0].channel'],
      ],
      [{ ...sendBody(app, '+15550001111'), recipient: { ...smsTo('+15550001111'), contact_id: 'c' } }, ['recipient']],
      [{ ...sendBody(app, '+15550001111'), message: {} }, ['message']],
      [{ ...sendBody(app, '+15550001111'), message: { text_message: { text: '' } } }, ['message.text_message.text']],
      [{ ...sendBody(app, '+15550001111'), message: { text_message: { text: 'x'.repeat(2049) } } }, ['message.text_message.text']],
      [{ ...sendBody(app, '+15550001111'), message: { media_message: { url: 'ftp://host/x.png' } } }, ['message.media_message.url']],
      [{ ...sendBody(app, '+15550001111'), message: { text_message: { text: 'a' }, media_message: { url: 'https://h/x.png' } } }, ['message']],
      [sendBody(app, '+15550001111', { message_metadata: 'm'.repeat(1025) }), ['message_metadata']],
      [sendBody(app, '+15550001111', { correlation_id: 'c'.repeat(129) }), ['correlation_id']],
      [sendBody(app, '+15550001111', { channel_priority_order: ['SMS', 'TELEX'] }), ['channel_priority_order[1]']],
      [sendBody(app, '+15550001111', { callback_url: 'not a url' }), ['callback_url']],
      [sendBody(app, '+15550001111', { ttl: 'soon' }), ['ttl']],
      [sendBody(app, '+15550001111', { colour: 'red' }), ['colour']],
    ];
    for (const [body, fields] of cases) {
      const res = await c.api('POST', '/messages:send', body);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 200));
      assert.equal(res.body.error.status, 'INVALID_ARGUMENT');
      assert.deepEqual(fieldsOf(res.body), fields, JSON.stringify(res.body.error));
      assert.match(res.body.error.message, new RegExp(fields[0]!.replace(/[[\].]/g, '\\$&')));
    }
    const notJson = await c.raw('POST', `${c.base('us')}/messages:send`, '{"app_id":', { ...basic, 'content-type': 'application/json' });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.error.status, 'INVALID_ARGUMENT');
    assert.equal((await c.control('GET', `/conversation/stats?appId=${app}`)).body.accepted, 0);
    assert.equal((await c.api('GET', '/messages')).body.messages.length, 0);
  });

  test('messages:send: 404 for an unknown app or another region; 200 {message_id, accepted_time}; contact and conversation made once', async () => {
    const app = await newApp(c, 'us');
    const eu = await newApp(c, 'eu');
    assert.equal((await c.api('POST', '/messages:send', sendBody(eu, '+15550001111'))).status, 404);
    assert.equal((await c.api('POST', '/messages:send', sendBody('01ARZ3NDEKTSV4RRFFQ69G5FAV', '+15550001111'))).status, 404);

    const first = await c.api('POST', '/messages:send', sendBody(app, '+15550001111', { message_metadata: 'rf:camp:1', correlation_id: 'corr-1' }));
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['accepted_time', 'message_id']);
    assert.ok(!Number.isNaN(Date.parse(first.body.accepted_time)));
    const second = await c.api('POST', '/messages:send', sendBody(app, '+15550001111'));
    const m1 = (await c.api('GET', `/messages/${first.body.message_id}`)).body;
    const m2 = (await c.api('GET', `/messages/${second.body.message_id}`)).body;
    assert.equal(m1.direction, 'TO_CONTACT');
    assert.deepEqual(m1.app_message, { text_message: { text: 'Hello' } });
    assert.deepEqual(m1.channel_identity, { channel: 'SMS', identity: '+15550001111', app_id: app });
    assert.equal(m1.metadata, 'rf:camp:1');
    assert.equal(m1.accept_time, first.body.accepted_time);
    assert.equal(m2.contact_id, m1.contact_id, 'the first message made the contact');
    assert.equal(m2.conversation_id, m1.conversation_id, 'and the conversation');

    // By contact_id, and picking the channel by channel_priority_order.
    const multi = await c.api('POST', '/messages:send', {
      app_id: app,
      recipient: {
        identified_by: {
          channel_identities: [
            { channel: 'SMS', identity: '+15550002222' },
            { channel: 'RCS', identity: '+15550002222' },
          ],
        },
      },
      message: { media_message: { url: 'https://cdn.example/a.png' } },
      channel_priority_order: ['RCS', 'SMS'],
    });
    const viaRcs = (await c.api('GET', `/messages/${multi.body.message_id}`)).body;
    assert.equal(viaRcs.channel_identity.channel, 'RCS');
    const byContact = await c.api('POST', '/messages:send', {
      app_id: app,
      recipient: { contact_id: viaRcs.contact_id },
      message: { text_message: { text: 'again' } },
    });
    assert.equal(byContact.status, 200);
    const again = (await c.api('GET', `/messages/${byContact.body.message_id}`)).body;
    assert.equal(again.contact_id, viaRcs.contact_id);
    assert.equal(again.channel_identity.channel, 'SMS');
    assert.equal(
      (await c.api('POST', '/messages:send', { app_id: app, recipient: { contact_id: 'nobody' }, message: { text_message: { text: 'x' } } })).status,
      404,
    );

    assert.equal((await c.api('GET', `/messages/${first.body.message_id}`, undefined, 'eu')).status, 404, 'not on another region');
    assert.equal((await c.api('GET', '/messages/01ARZ3NDEKTSV4RRFFQ69G5FAV')).status, 404);
  });

  test('message list: newest first, by app and identity, pages with next_page_token, metadata as sent', async () => {
    const app = await newApp(c, 'us', 1000);
    const other = await newApp(c, 'us', 1000);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await c.api('POST', '/messages:send', sendBody(app, i % 2 ? '+15550003333' : '+15550004444', { message_metadata: `rf:c1:${i}` }));
      ids.push(res.body.message_id);
    }
    await c.api('POST', '/messages:send', sendBody(other, '+15550003333', { message_metadata: 'rf:other' }));

    const all = await c.api('GET', `/messages?app_id=${app}`);
    assert.deepEqual(
      all.body.messages.map((m: Body) => m.id),
      [...ids].reverse(),
    );
    assert.equal(all.body.next_page_token, '');
    const mine = (await c.api('GET', `/messages?app_id=${app}&channel_identity=%2B15550003333`)).body.messages;
    assert.deepEqual(
      mine.map((m: Body) => m.metadata),
      ['rf:c1:5', 'rf:c1:3', 'rf:c1:1'],
    );
    assert.equal((await c.api('GET', '/messages?channel_identity=%2B15550003333')).body.messages.length, 4, 'every app of the region');

    const pages: string[][] = [];
    let token = '';
    do {
      const page = await c.api('GET', `/messages?app_id=${app}&page_size=3${token ? `&page_token=${token}` : ''}`);
      assert.equal(page.status, 200);
      pages.push(page.body.messages.map((m: Body) => m.id));
      token = page.body.next_page_token;
    } while (token);
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.deepEqual(pages.flat(), [...ids].reverse());

    assert.deepEqual(fieldsOf((await c.api('GET', `/messages?app_id=${app}&page_size=1001`)).body), ['page_size']);
    assert.deepEqual(fieldsOf((await c.api('GET', '/messages?app_id=bad')).body), ['app_id']);
    assert.deepEqual(fieldsOf((await c.api('GET', '/messages?page_token=%%%')).body), ['page_token']);
    assert.equal((await c.api('GET', `/messages?app_id=${app}`, undefined, 'eu')).status, 404);
  });

  test('webhooks: create, list per app, at most 5, duplicate target 400, delete; region and validation', async () => {
    const app = await newApp(c, 'eu');
    const body = (n: number) => ({ app_id: app, target: `https://hooks.example/${n}`, target_type: 'HTTP', secret: 's3cret', triggers: ['MESSAGE_DELIVERY'] });
    const created = await c.api('POST', '/webhooks', body(0), 'eu');
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(
      { ...created.body, id: 'x' },
      { id: 'x', app_id: app, target: 'https://hooks.example/0', target_type: 'HTTP', secret: 's3cret', triggers: ['MESSAGE_DELIVERY'] },
    );
    const dup = await c.api('POST', '/webhooks', body(0), 'eu');
    assert.equal(dup.status, 400);
    assert.deepEqual(fieldsOf(dup.body), ['target']);
    for (let n = 1; n < 5; n++) assert.equal((await c.api('POST', '/webhooks', body(n), 'eu')).status, 200);
    const sixth = await c.api('POST', '/webhooks', body(5), 'eu');
    assert.equal(sixth.status, 400);
    assert.equal((await c.api('GET', `/apps/${app}/webhooks`, undefined, 'eu')).body.webhooks.length, 5);
    assert.equal((await c.api('GET', `/apps/${app}/webhooks`, undefined, 'us')).status, 404);
    assert.equal((await c.api('POST', '/webhooks', body(9), 'us')).status, 404);

    const invalid = await c.api('POST', '/webhooks', { app_id: app, target: 'nope', target_type: 'GRPC', triggers: ['MESSAGE_DELIVERY', 'WHATEVER'] }, 'eu');
    assert.equal(invalid.status, 400);
    assert.deepEqual(fieldsOf(invalid.body).sort(), ['secret', 'target', 'target_type', 'triggers[1]']);

    assert.equal((await c.api('DELETE', `/webhooks/${created.body.id}`, undefined, 'us')).status, 404);
    assert.equal((await c.api('DELETE', `/webhooks/${created.body.id}`, undefined, 'eu')).status, 200);
    assert.equal((await c.api('DELETE', `/webhooks/${created.body.id}`, undefined, 'eu')).status, 404);
    assert.equal((await c.api('GET', `/apps/${app}/webhooks`, undefined, 'eu')).body.webhooks.length, 4);
  });
});
