// The conversation client (platform/conversation/): the wire of apps, messages:send, the look-up of a sent
// message by its metadata and the idempotent delivery webhook, against a local stub (docs/conversation-wire.md);
// then against the sandbox's conversation area: sends, a send whose answer is lost and found again, 429s,
// refusals, and the signed delivery reports the registered webhook receives (verified the way the API's
// callback route does, with common/signing.ts verifyConversationWebhook).
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { SANDBOX_CREDENTIALS, type PlatformConfig, type Region } from '../../common/config.js';
import { CONVERSATION_WEBHOOK_HEADERS, conversationWebhookSignature, verifyConversationWebhook } from '../../common/signing.js';
import { PlatformAuthError, PlatformNotFoundError, PlatformRateLimitError, PlatformUnavailableError, PlatformValidationError } from '../../platform/errors.js';
import type { ConversationClient } from '../../platform/conversation/client.js';
import type { WireMessage, WireWebhook } from '../../common/wire/conversation.js';
import { classifySendError } from '../../platform/send-errors.js';
import { createSandbox, type Sandbox } from '../../sandbox/index.js';
import { scriptedPlatform, type Answer, type Seen } from '../helpers/platform-config.js';
import { pollUntil } from '../helpers/deadline.js';
import { Receiver } from '../helpers/stub-server.js';
import { sandboxClients, sandboxControl } from '../helpers/sandbox-clients.js';

describe('conversation client', () => {
  const APP = '01HZX3Y4Z5A6B7C8D9E0F1G2H3';

  /** Token service plus a conversation interface under /{region}/ answering `answer(request)`. */
  async function startStub(t: TestContext, answer: (r: Seen) => Answer = () => ({ body: {} })) {
    const { clients, seen } = await scriptedPlatform(t, answer, {
      urls: (base) => ({ conversation: { us: `${base}/us/`, eu: `${base}/eu`, br: `${base}/br` } }),
      credentials: { projectId: 'proj 1' },
    });
    return { client: clients.conversation, seen };
  }

  const P = (region: Region) => `/${region}/v1/projects/proj%201`;
  const oauthError = (code: number, status: string, message: string) => ({ status: code, body: { error: { code, message, status, details: [] } } });

  test("sendMessage: POST messages:send on the app's region with the bearer token, the metadata and the correlation ID", async (t) => {
    const { client, seen } = await startStub(t, () => ({ body: { message_id: 'msg-1', accepted_time: '2025-06-01T12:00:00Z' } }));
    const sent = await client.sendMessage('us', {
      appId: APP,
      channel: 'SMS',
      identity: '+15551234567',
      text: 'Hello',
      metadata: 'rf:camp-1:42',
      correlationId: 'corr-9',
    });
    assert.deepEqual(sent, { messageId: 'msg-1', acceptedTime: '2025-06-01T12:00:00Z' });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.method, 'POST');
    assert.equal(seen[0]!.path, `${P('us')}/messages:send`);
    assert.equal(seen[0]!.authorization, 'Bearer tok-1');
    assert.deepEqual(seen[0]!.body, {
      app_id: APP,
      recipient: { identified_by: { channel_identities: [{ channel: 'SMS', identity: '+15551234567' }] } },
      message: { text_message: { text: 'Hello' } },
      message_metadata: 'rf:camp-1:42',
      correlation_id: 'corr-9',
    });
  });

  test('sendMessage: a media message, and no metadata fields when none were given', async (t) => {
    const { client, seen } = await startStub(t, () => ({ body: { message_id: 'msg-2', accepted_time: 't' } }));
    await client.sendMessage('eu', { appId: APP, channel: 'RCS', identity: '+33612345678', mediaUrl: 'https://cdn.example.com/a.png' });
    assert.equal(seen[0]!.path, `${P('eu')}/messages:send`);
    assert.deepEqual(seen[0]!.body, {
      app_id: APP,
      recipient: { identified_by: { channel_identities: [{ channel: 'RCS', identity: '+33612345678' }] } },
      message: { media_message: { url: 'https://cdn.example.com/a.png' } },
    });
  });

  test("findSentByMetadata: reads the identity's messages page by page until the metadata matches", async (t) => {
    const pages: Record<string, { messages: WireMessage[]; next_page_token: string }> = {
      '': {
        messages: [
          { id: 'm-10', metadata: 'rf:c:10' },
          { id: 'm-5', metadata: 'rf:c:5' },
          { id: 'm-4', metadata: 'rf:c:4' },
        ],
        next_page_token: 'p2',
      },
      p2: { messages: [{ id: 'm-3', metadata: 'rf:c:3' }, { id: 'm-2' }], next_page_token: 'p3' },
      p3: { messages: [{ id: 'm-1', metadata: 'rf:c:1' }], next_page_token: '' },
    };
    const { client, seen } = await startStub(t, (r) => ({ body: pages[r.query.page_token ?? ''] }));
    const q = { appId: APP, channel: 'SMS', identity: '+15551234567' };

    assert.equal(await client.findSentByMetadata('br', { ...q, metadata: 'rf:c:3' }), 'm-3');
    assert.deepEqual(
      seen.map((s) => [s.method, s.path, s.query]),
      [
        ['GET', `${P('br')}/messages`, { app_id: APP, channel_identity: '+15551234567', page_size: '100' }],
        ['GET', `${P('br')}/messages`, { app_id: APP, channel_identity: '+15551234567', page_size: '100', page_token: 'p2' }],
      ],
    );

    seen.length = 0;
    // The metadata must match exactly: rf:c:10 on page 1 is not rf:c:1.
    assert.equal(await client.findSentByMetadata('br', { ...q, metadata: 'rf:c:1' }), 'm-1');
    assert.equal(seen.length, 3);

    // Not on any page: undefined after the last page ("" token), without asking for a page 4.
    seen.length = 0;
    assert.equal(await client.findSentByMetadata('br', { ...q, metadata: 'rf:c:99' }), undefined);
    assert.equal(seen.length, 3);
  });

  test('findSentByMetadata gives up after 5 pages of an identity with endless history', async (t) => {
    let n = 0;
    const { client, seen } = await startStub(t, () => ({ body: { messages: [{ id: `m-${++n}`, metadata: `other-${n}` }], next_page_token: `tok-${n}` } }));
    assert.equal(await client.findSentByMetadata('us', { appId: APP, channel: 'SMS', identity: '+15551234567', metadata: 'rf:c:1' }), undefined);
    assert.equal(seen.length, 5);
    // A page without `messages` or `next_page_token` ends the look-up too.
    const empty = await startStub(t, () => ({ body: {} }));
    assert.equal(await empty.client.findSentByMetadata('us', { appId: APP, channel: 'SMS', identity: '+1', metadata: 'x' }), undefined);
    assert.equal(empty.seen.length, 1);
  });

  test("getApp maps the wire App, with the platform's defaults for what the answer leaves out", async (t) => {
    const { client, seen } = await startStub(t, (r) => ({
      body: r.path.endsWith(APP) ? { id: APP, display_name: 'Shop', region: 'EU', rate_limits: { outbound: 55, inbound: 100 } } : { id: 'bare' },
    }));
    assert.deepEqual(await client.getApp('eu', APP), { id: APP, displayName: 'Shop', region: 'EU', outboundRate: 55 });
    assert.equal(seen[0]!.path, `${P('eu')}/apps/${APP}`);
    assert.deepEqual(await client.getApp('br', 'bare'), { id: 'bare', displayName: '', region: 'BR', outboundRate: 20 });
  });

  test('conversation errors are typed from the {error: {status}} body', async (t) => {
    const { client } = await startStub(t, (r) =>
      r.path.endsWith('messages:send')
        ? oauthError(404, 'NOT_FOUND', `App ${APP} not found`)
        : oauthError(403, 'PERMISSION_DENIED', 'key not tied to the project'),
    );
    const send = await client.sendMessage('us', { appId: APP, channel: 'SMS', identity: '+15551234567', text: 'x' }).catch((e: unknown) => e);
    assert.ok(send instanceof PlatformNotFoundError, `expected a PlatformNotFoundError, got ${String(send)}`);
    assert.equal(send.code, 'NOT_FOUND');
    assert.equal(classifySendError(send).kind, 'campaign_refused');
    await assert.rejects(
      client.getApp('us', APP),
      (err: unknown) => err instanceof PlatformAuthError && err.code === 'PERMISSION_DENIED' && err.httpStatus === 403,
    );
  });

  test('webhooks.ensure: creates when absent, keeps an identical one, replaces one whose secret or triggers differ', async (t) => {
    const other: WireWebhook = {
      id: 'wh-other',
      app_id: APP,
      target: 'https://other.test/hook',
      target_type: 'HTTP',
      secret: 'x',
      triggers: ['MESSAGE_INBOUND'],
    };
    let hooks: WireWebhook[] = [other];
    let nextId = 1;
    const { client, seen } = await startStub(t, (r) => {
      if (r.method === 'GET') return { body: { webhooks: hooks } };
      if (r.method === 'DELETE') {
        hooks = hooks.filter((h) => !r.path.endsWith(`/webhooks/${h.id}`));
        return { body: {} };
      }
      const b = r.body as Omit<WireWebhook, 'id'>;
      const created = { id: `wh-${nextId++}`, ...b };
      hooks.push(created);
      return { body: created };
    });
    const target = 'https://relayflow.test/callbacks/conversation';
    const first = await client.webhooks.ensure('us', APP, target, 'secret-1', ['MESSAGE_DELIVERY']);
    assert.equal(first.id, 'wh-1');
    const post = seen.find((s) => s.method === 'POST')!;
    assert.equal(post.path, `${P('us')}/webhooks`);
    assert.deepEqual(post.body, { app_id: APP, target, target_type: 'HTTP', secret: 'secret-1', triggers: ['MESSAGE_DELIVERY'] });
    assert.equal(seen[0]!.path, `${P('us')}/apps/${APP}/webhooks`);

    seen.length = 0;
    assert.equal((await client.webhooks.ensure('us', APP, target, 'secret-1', ['MESSAGE_DELIVERY'])).id, 'wh-1');
    assert.deepEqual(
      seen.map((s) => s.method),
      ['GET'],
    );

    seen.length = 0;
    const rotated = await client.webhooks.ensure('us', APP, target, 'secret-2', ['MESSAGE_DELIVERY']);
    assert.equal(rotated.id, 'wh-2');
    assert.deepEqual(
      seen.map((s) => [s.method, s.path]),
      [
        ['GET', `${P('us')}/apps/${APP}/webhooks`],
        ['DELETE', `${P('us')}/webhooks/wh-1`],
        ['POST', `${P('us')}/webhooks`],
      ],
    );

    const more = await client.webhooks.ensure('us', APP, target, 'secret-2', ['MESSAGE_DELIVERY', 'MESSAGE_INBOUND']);
    assert.equal(more.id, 'wh-3');
    // The webhook with another target is left alone.
    assert.deepEqual(
      hooks.map((h) => [h.id, h.secret, h.triggers]),
      [
        ['wh-other', 'x', ['MESSAGE_INBOUND']],
        ['wh-3', 'secret-2', ['MESSAGE_DELIVERY', 'MESSAGE_INBOUND']],
      ],
    );
    assert.deepEqual(await client.webhooks.list('us', APP), hooks);
  });

  test('webhooks.ensure: a create whose answer was lost is found by the next read; otherwise the error stands', async (t) => {
    const hooks: WireWebhook[] = [];
    let keep = true;
    const { client } = await startStub(t, (r) => {
      if (r.method === 'GET') return { body: { webhooks: hooks } };
      // The platform makes the webhook (or not), then the answer fails.
      if (keep) hooks.push({ id: 'wh-lost', ...(r.body as Omit<WireWebhook, 'id'>) });
      return oauthError(502, 'INTERNAL', 'bad gateway');
    });
    const found = await client.webhooks.ensure('eu', APP, 'https://relayflow.test/a', 'sec', ['MESSAGE_DELIVERY']);
    assert.equal(found.id, 'wh-lost');

    keep = false;
    await assert.rejects(
      client.webhooks.ensure('eu', APP, 'https://relayflow.test/b', 'sec', ['MESSAGE_DELIVERY']),
      (err: unknown) => err instanceof PlatformUnavailableError && err.httpStatus === 502,
    );
  });

  // ---------------------------------------------------------------------------------------------
  // Against the sandbox
  // ---------------------------------------------------------------------------------------------

  const SECRET = 'conversation-webhook-secret';

  let sb: Sandbox;
  let conversation: ConversationClient;
  const receiver = new Receiver('/callbacks/conversation');
  const received = receiver.received;
  let receiverUrl: string;

  const clientsFor = (over: Partial<PlatformConfig> = {}, credentials = SANDBOX_CREDENTIALS) => sandboxClients(sb, { credentials, ...over });
  const control = sandboxControl(() => sb, '/conversation');

  /** A new app (each test its own, so counts and rates do not mix). */
  const newApp = async (region: Region = 'us', outboundRate?: number) =>
    ((await control('POST', '/apps', { region, displayName: `app ${region}`, ...(outboundRate ? { outboundRate } : {}) })) as { id: string }).id;

  const waitFor = <T>(get: () => T | undefined, ms = 5000): Promise<T> => pollUntil(get, 'a delivery', ms, 20);

  before(async () => {
    sb = await createSandbox();
    await sb.listen();
    conversation = clientsFor().conversation;
    receiverUrl = (await receiver.start()).url;
  });

  after(async () => {
    await receiver.stop();
    await sb.close();
  });

  test("sandbox: getApp on the app's region; any other region answers 404", async () => {
    const appId = await newApp('eu', 7);
    assert.deepEqual(await conversation.getApp('eu', appId), { id: appId, displayName: 'app eu', region: 'EU', outboundRate: 7 });
    const err = await conversation.getApp('us', appId).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformNotFoundError, `expected a PlatformNotFoundError, got ${String(err)}`);
    assert.equal(err.code, 'NOT_FOUND');
  });

  test('sandbox: sent messages are found again by their metadata, on their identity only', async () => {
    const appId = await newApp('us');
    const identity = '+15551230001';
    const ids: string[] = [];
    for (let seq = 1; seq <= 3; seq++) {
      const r = await conversation.sendMessage('us', { appId, channel: 'SMS', identity, text: `hello ${seq}`, metadata: `rf:camp-1:${seq}` });
      assert.match(r.messageId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.ok(!Number.isNaN(Date.parse(r.acceptedTime)), `accepted_time ${r.acceptedTime} is a date-time`);
      ids.push(r.messageId);
    }
    await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '+15551230002', text: 'other', metadata: 'rf:camp-1:4' });

    const q = { appId, channel: 'SMS', identity };
    assert.equal(await conversation.findSentByMetadata('us', { ...q, metadata: 'rf:camp-1:2' }), ids[1]);
    assert.equal(await conversation.findSentByMetadata('us', { ...q, metadata: 'rf:camp-1:1' }), ids[0]);
    assert.equal(await conversation.findSentByMetadata('us', { ...q, metadata: 'rf:camp-1:4' }), undefined, "another identity's message");
    assert.equal(await conversation.findSentByMetadata('us', { ...q, metadata: 'rf:camp-2:1' }), undefined);

    const m = await conversation.getMessage('us', ids[2]!);
    assert.equal(m.id, ids[2]);
    assert.equal(m.metadata, 'rf:camp-1:3');
    assert.deepEqual(m.channel_identity, { channel: 'SMS', identity, app_id: appId });
    await assert.rejects(conversation.getMessage('eu', ids[2]!), PlatformNotFoundError);
  });

  test('sandbox: a send whose answer is lost is in doubt, and the look-up finds the message the platform accepted', async () => {
    const appId = await newApp('us');
    const hasty = clientsFor({ requestTimeoutMs: 250 }).conversation;
    await hasty.getApp('us', appId); // the token first, so only the send can time out
    await control('PUT', '/send-faults', { acceptThenDelayMs: 1500, count: 1 });
    const identity = '+15551239999';
    const err = await hasty.sendMessage('us', { appId, channel: 'SMS', identity, text: 'hi', metadata: 'rf:camp-3:1' }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformUnavailableError, `expected a PlatformUnavailableError, got ${String(err)}`);
    assert.equal(err.code, 'TIMEOUT');
    assert.equal(classifySendError(err).kind, 'in_doubt');

    const found = await conversation.findSentByMetadata('us', { appId, channel: 'SMS', identity, metadata: 'rf:camp-3:1' });
    assert.ok(found, 'the accepted message is found');
    assert.equal((await conversation.getMessage('us', found)).metadata, 'rf:camp-3:1');
    const stats = (await control('GET', `/stats?appId=${appId}`)) as { accepted: number; duplicateRecipients: number };
    assert.deepEqual([stats.accepted, stats.duplicateRecipients], [1, 0]);
  });

  test('sandbox: an app whose MT queue is full answers a send with 429 and Retry-After: throttled', async () => {
    // Faster than the outbound rate is queued, not refused (spec Limits): a 429 comes from a full queue (or the project's limit).
    const appId = await newApp('us', 1);
    await control('PUT', `/apps/${appId}`, { queueCapacity: 1, paused: true });
    await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '+15551231001', text: 'one' });
    const err = await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '+15551231002', text: 'two' }).catch((e: unknown) => e);
    assert.ok(err instanceof PlatformRateLimitError, `expected a PlatformRateLimitError, got ${String(err)}`);
    assert.equal(err.code, 'RESOURCE_EXHAUSTED');
    assert.ok(err.retryAfterMs !== undefined && err.retryAfterMs > 0, `retryAfterMs ${err.retryAfterMs}`);
    const c = classifySendError(err);
    assert.equal(c.kind, 'throttled');
    assert.equal(c.retryAfterMs, err.retryAfterMs);
  });

  test('sandbox: refusals classify as the batch must react (bad identity, empty text, wrong region, bad credentials)', async () => {
    const appId = await newApp('us');
    const badIdentity = await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '5551234567', text: 'x' }).catch((e: unknown) => e);
    assert.ok(badIdentity instanceof PlatformValidationError, `expected a PlatformValidationError, got ${String(badIdentity)}`);
    assert.match(JSON.stringify(badIdentity.details), /recipient\.identified_by\.channel_identities\[0\]\.identity/);
    assert.equal(classifySendError(badIdentity).kind, 'recipient_rejected');

    const emptyText = await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '+15551234567', text: '' }).catch((e: unknown) => e);
    assert.ok(emptyText instanceof PlatformValidationError, `expected a PlatformValidationError, got ${String(emptyText)}`);
    assert.equal(classifySendError(emptyText).kind, 'campaign_refused');

    const wrongRegion = await conversation.sendMessage('br', { appId, channel: 'SMS', identity: '+15551234567', text: 'x' }).catch((e: unknown) => e);
    assert.ok(wrongRegion instanceof PlatformNotFoundError, `expected a PlatformNotFoundError, got ${String(wrongRegion)}`);
    assert.equal(classifySendError(wrongRegion).kind, 'campaign_refused');

    const stranger = clientsFor({}, { ...SANDBOX_CREDENTIALS, keySecret: 'not-the-secret' }).conversation;
    const badKey = await stranger.sendMessage('us', { appId, channel: 'SMS', identity: '+15551234567', text: 'x' }).catch((e: unknown) => e);
    assert.ok(badKey instanceof PlatformAuthError, String(badKey));
    assert.equal(badKey.httpStatus, 401);
    assert.equal(classifySendError(badKey).kind, 'campaign_refused');

    const stats = (await control('GET', `/stats?appId=${appId}`)) as { accepted: number };
    assert.equal(stats.accepted, 0);
  });

  test('sandbox: ensure registers the delivery webhook once; its reports are signed over the raw body', async () => {
    const appId = await newApp('us');
    const hook = await conversation.webhooks.ensure('us', appId, receiverUrl, SECRET, ['MESSAGE_DELIVERY']);
    assert.equal((await conversation.webhooks.ensure('us', appId, receiverUrl, SECRET, ['MESSAGE_DELIVERY'])).id, hook.id);
    assert.deepEqual(
      (await conversation.webhooks.list('us', appId)).map((w) => w.id),
      [hook.id],
    );

    const { messageId } = await conversation.sendMessage('us', {
      appId,
      channel: 'SMS',
      identity: '+15551232000',
      text: 'hi',
      metadata: 'rf:camp-4:1',
      correlationId: 'corr-1',
    });
    const delivered = await waitFor(() =>
      received.find((d) => {
        const r = (JSON.parse(d.raw) as { message_delivery_report?: { message_id?: string; status?: string } }).message_delivery_report;
        return r?.message_id === messageId && r.status === 'DELIVERED';
      }),
    );
    const body = JSON.parse(delivered.raw) as {
      app_id: string;
      message_metadata: string;
      correlation_id: string;
      message_delivery_report: { metadata: string };
    };
    assert.equal(body.app_id, appId);
    assert.equal(body.message_metadata, 'rf:camp-4:1');
    assert.equal(body.message_delivery_report.metadata, 'rf:camp-4:1');
    assert.equal(body.correlation_id, 'corr-1');

    const h = CONVERSATION_WEBHOOK_HEADERS;
    const headers = delivered.headers;
    assert.equal(headers[h.algorithm], 'HmacSHA256');
    const timestamp = String(headers[h.timestamp]);
    const nonce = String(headers[h.nonce]);
    assert.equal(headers[h.signature], conversationWebhookSignature(SECRET, delivered.raw, nonce, timestamp));

    const now = Number(timestamp) * 1000;
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now }), { ok: true });
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: Buffer.from(delivered.raw, 'utf8'), secret: SECRET, now }), { ok: true });
    // A re-serialised body is not the raw body: the signature covers the exact bytes.
    const tampered = delivered.raw.replace('rf:camp-4:1', 'rf:camp-4:2');
    assert.notEqual(tampered, delivered.raw);
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: tampered, secret: SECRET, now }), { ok: false, reason: 'bad_signature' });
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: 'another-secret', now }), { ok: false, reason: 'bad_signature' });
    // Timestamp window: 5 minutes either way.
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now: now + 300_000 }), { ok: true });
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now: now + 301_000 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now: now - 301_000 }), {
      ok: false,
      reason: 'stale_timestamp',
    });
    // The timestamp is signed too: moving it into the window breaks the signature.
    const moved = { ...headers, [h.timestamp]: String(Number(timestamp) + 1) };
    assert.deepEqual(verifyConversationWebhook({ headers: moved, rawBody: delivered.raw, secret: SECRET, now }), { ok: false, reason: 'bad_signature' });
    // A replayed nonce is refused once the receiver has seen it.
    const seen = new Set<string>();
    const seenNonce = (n: string) => seen.has(n) || (seen.add(n), false);
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now, seenNonce }), { ok: true });
    assert.deepEqual(verifyConversationWebhook({ headers, rawBody: delivered.raw, secret: SECRET, now, seenNonce }), { ok: false, reason: 'replayed_nonce' });
    const { [h.signature]: _s, ...unsigned } = headers;
    assert.deepEqual(verifyConversationWebhook({ headers: unsigned, rawBody: delivered.raw, secret: SECRET, now }), { ok: false, reason: 'missing_signature' });
    assert.deepEqual(verifyConversationWebhook({ headers: { ...headers, [h.algorithm]: 'HmacSHA1' }, rawBody: delivered.raw, secret: SECRET, now }), {
      ok: false,
      reason: 'unsupported_algorithm',
    });

    // Rotating the secret: ensure replaces the webhook, and the next report verifies with the new secret only.
    const rotated = await conversation.webhooks.ensure('us', appId, receiverUrl, 'secret-2', ['MESSAGE_DELIVERY']);
    assert.notEqual(rotated.id, hook.id);
    assert.deepEqual(
      (await conversation.webhooks.list('us', appId)).map((w) => [w.id, w.secret]),
      [[rotated.id, 'secret-2']],
    );
    const next = await conversation.sendMessage('us', { appId, channel: 'SMS', identity: '+15551232001', text: 'hi' });
    const report = await waitFor(() => received.find((d) => d.raw.includes(next.messageId)));
    assert.equal(verifyConversationWebhook({ headers: report.headers, rawBody: report.raw, secret: 'secret-2' }).ok, true);
    assert.deepEqual(verifyConversationWebhook({ headers: report.headers, rawBody: report.raw, secret: SECRET }), { ok: false, reason: 'bad_signature' });
  });
});
