// Conversation sandbox area: messages leave the MT queue at the app's outbound rate and each makes
// its delivery reports, POSTed to every webhook subscribed to MESSAGE_DELIVERY and verified here as
// a receiver does (verifyConversationWebhook with the webhook's secret); outcome rules, retries on
// the settable schedule, webhook faults (drop, duplicate, reorder, delay), core callback faults,
// and reset stopping what is queued.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { account, conversationSuite, newApp, SECRET, sendBody, sleep, waitFor, type Body, type Client } from '../../helpers/sandbox-conversation.js';

async function hook(c: Client, app: string, url: string, triggers = ['MESSAGE_DELIVERY']): Promise<void> {
  const res = await c.api('POST', '/webhooks', { app_id: app, target: url, target_type: 'HTTP', secret: SECRET, triggers });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function sendAll(c: Client, app: string, identities: string[], extra: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (const to of identities) {
    const res = await c.api('POST', '/messages:send', sendBody(app, to, extra));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids.push(res.body.message_id);
  }
  return ids;
}

describe('conversation sandbox: MT queue and delivery reports', () => {
  const { c, receiver } = conversationSuite();

  test('each message leaving the queue is QUEUED_ON_CHANNEL then DELIVERED, signed, to every MESSAGE_DELIVERY webhook', async () => {
    const app = await newApp(c, 'us', 100);
    await hook(c, app, receiver.url);
    await hook(c, app, `${receiver.url}/inbound-only`, ['MESSAGE_INBOUND']);
    const ids = await sendAll(c, app, ['+15550000001', '+15550000002', '+15550000003'], { message_metadata: 'rf:camp:1', correlation_id: 'corr' });
    await waitFor(() => receiver.received.length >= 6, 'six reports');
    await sleep(50);
    assert.equal(receiver.received.length, 6, 'none to the webhook without MESSAGE_DELIVERY');
    for (const id of ids) assert.deepEqual(receiver.statuses(id), ['QUEUED_ON_CHANNEL', 'DELIVERED']);
    for (const d of receiver.received) {
      assert.equal(d.verified, true, d.reason);
      assert.equal(d.headers['x-platform-webhook-signature-algorithm'], 'HmacSHA256');
      assert.equal(d.headers['content-type'], 'application/json');
    }
    const message = (await c.api('GET', `/messages/${ids[0]}`)).body;
    const report = receiver.received.find(
      (d) => d.body.message_delivery_report.message_id === ids[0] && d.body.message_delivery_report.status === 'DELIVERED',
    )!.body;
    assert.equal(report.app_id, app);
    assert.equal(report.project_id, account.projectId);
    assert.ok(!Number.isNaN(Date.parse(report.event_time)) && !Number.isNaN(Date.parse(report.accepted_time)));
    assert.equal(report.message_metadata, 'rf:camp:1');
    assert.equal(report.correlation_id, 'corr');
    assert.deepEqual(report.message_delivery_report, {
      message_id: ids[0],
      conversation_id: message.conversation_id,
      status: 'DELIVERED',
      channel_identity: { channel: 'SMS', identity: '+15550000001', app_id: app },
      contact_id: message.contact_id,
      metadata: 'rf:camp:1',
      processing_mode: 'CONVERSATION',
    });
  });

  test('the queue drains at the app outbound rate', async () => {
    const app = await newApp(c, 'us', 10);
    await hook(c, app, receiver.url);
    await c.control('PUT', '/conversation/delivery', { queuedReport: true });
    const sending = performance.now();
    await sendAll(
      c,
      app,
      Array.from({ length: 10 }, (_, i) => `+1555000010${i}`),
    );
    // No more left the queue than 10/s allows in the time the sends took (long, on a loaded machine).
    const mayHaveLeft = Math.ceil(((performance.now() - sending) * 10) / 1000) + 1;
    const left = 10 - (await c.control('GET', '/conversation/apps')).body.apps[0].queue.length;
    assert.ok(left <= mayHaveLeft, `${left} left the queue within ${Math.round(performance.now() - sending)} ms`);
    const queued = () => receiver.received.filter((d) => d.body.message_delivery_report.status === 'QUEUED_ON_CHANNEL');
    await waitFor(() => queued().length === 10, 'ten leave the queue', 4000);
    const at = queued()
      .map((d) => d.at)
      .sort((x, y) => x - y);
    // One every 100 ms: the first and the tenth are about 900 ms apart.
    assert.ok(at[9]! - at[0]! >= 800, `ten messages at 10/s left within ${at[9]! - at[0]!} ms`);
  });

  test('outcome rules by suffix, FAILED with a reason; no QUEUED_ON_CHANNEL when switched off; the report delay', async () => {
    const app = await newApp(c, 'us', 100);
    await hook(c, app, receiver.url);
    const set = await c.control('PUT', '/conversation/delivery', {
      rules: [
        { suffix: '13', status: 'FAILED', reasonCode: 'CHANNEL_REJECT' },
        { suffix: '99', status: 'FAILED' },
        { suffix: '', status: 'DELIVERED' },
      ],
      reportDelayMs: 150,
      queuedReport: false,
    });
    assert.equal(set.status, 200);
    const started = Date.now();
    const [ok, rejected, unreachable] = await sendAll(c, app, ['+15550000012', '+15550000013', '+15550000099']);
    await waitFor(() => receiver.received.length >= 3, 'three final reports');
    assert.ok(Date.now() - started >= 140, 'after the report delay');
    assert.deepEqual(
      receiver.received.map((d) => d.body.message_delivery_report.message_id).sort(),
      [ok, rejected, unreachable].sort(),
      'one final report each, and nothing else',
    );
    const byId = (id: string) => receiver.received.find((d) => d.body.message_delivery_report.message_id === id)!.body.message_delivery_report;
    assert.equal(byId(ok!).status, 'DELIVERED');
    assert.equal(byId(ok!).reason, undefined);
    assert.equal(byId(rejected!).status, 'FAILED');
    assert.equal(byId(rejected!).reason.code, 'CHANNEL_REJECT');
    assert.equal(byId(unreachable!).reason.code, 'RECIPIENT_NOT_REACHABLE');
    assert.equal(typeof byId(unreachable!).reason.description, 'string');
    const bad = await c.control('PUT', '/conversation/delivery', { rules: [{ suffix: 1, status: 'LOST' }], reportDelayMs: -1 });
    assert.deepEqual(bad.body.error.details.map((d: Body) => d.field).sort(), ['reportDelayMs', 'rules[0].status', 'rules[0].suffix']);
  });

  test('a non-2xx answer is retried on the settable schedule, each attempt freshly signed', async () => {
    const app = await newApp(c, 'us', 100);
    await hook(c, app, receiver.url);
    assert.equal((await c.control('PUT', '/conversation/webhook-retry', { scheduleMs: [20, 20], timeoutMs: 2000 })).status, 200);
    await c.control('PUT', '/conversation/delivery', { queuedReport: false });
    receiver.script = [500, 503];
    const [id] = await sendAll(c, app, ['+15550000001']);
    await waitFor(() => receiver.received.length === 3, 'three attempts');
    const callbacks = async () => (await c.control('GET', '/callbacks?area=conversation')).body.callbacks as Body[];
    const deadline = Date.now() + 2000;
    while ((await callbacks())[0]?.outcome !== 'delivered' && Date.now() < deadline) await sleep(10);
    assert.deepEqual(receiver.statuses(id!), ['DELIVERED', 'DELIVERED', 'DELIVERED']);
    assert.ok(
      receiver.received.every((d) => d.verified),
      'a new nonce per attempt',
    );
    const [record, ...more] = await callbacks();
    assert.equal(more.length, 0);
    assert.deepEqual(
      record.attempts.map((a: Body) => a.status),
      [500, 503, 200],
    );
    assert.equal(record.outcome, 'delivered');
  });

  test('webhook faults: drop, duplicate, reorder (QUEUED_ON_CHANNEL after the final), delay; core callback faults too', async () => {
    const app = await newApp(c, 'us', 100);
    await hook(c, app, receiver.url);

    await c.control('PUT', '/conversation/webhook-faults', { drop: 1, duplicate: 1 });
    const [a] = await sendAll(c, app, ['+15550000001']);
    await waitFor(() => receiver.received.length === 2, 'the duplicated final');
    await sleep(50);
    assert.deepEqual(receiver.statuses(a!), ['DELIVERED', 'DELIVERED'], 'QUEUED_ON_CHANNEL dropped, DELIVERED twice');
    assert.equal(receiver.received[0]!.rawBody, receiver.received[1]!.rawBody);
    assert.notEqual(receiver.received[0]!.headers['x-platform-webhook-signature-nonce'], receiver.received[1]!.headers['x-platform-webhook-signature-nonce']);
    const counts = (await c.control('GET', '/conversation/reports')).body;
    assert.equal(counts.dropped, 1);
    assert.equal(counts.duplicated, 1);

    await receiver.reset();
    assert.deepEqual((await c.control('PUT', '/conversation/webhook-faults', { reorder: true })).body, { drop: 0, duplicate: 0, reorder: true, delayMs: 0 });
    const ids = await sendAll(c, app, ['+15550000002', '+15550000003']);
    await waitFor(() => receiver.received.length === 4, 'four reports');
    for (const id of ids) assert.deepEqual(receiver.statuses(id), ['DELIVERED', 'QUEUED_ON_CHANNEL']);

    await receiver.reset();
    await c.control('PUT', '/conversation/webhook-faults', { delayMs: 200 });
    await c.control('PUT', '/conversation/delivery', { queuedReport: false });
    const started = Date.now();
    await sendAll(c, app, ['+15550000004']);
    await waitFor(() => receiver.received.length === 1, 'the delayed report');
    assert.ok(Date.now() - started >= 190);

    await receiver.reset();
    await c.control('PUT', '/conversation/webhook-faults', {});
    assert.equal((await c.control('POST', '/callback-faults', { drop: 1 })).status, 200);
    await sendAll(c, app, ['+15550000005', '+15550000006']);
    await waitFor(() => receiver.received.length === 1, 'one report');
    await sleep(100);
    assert.equal(receiver.received.length, 1, 'the core dropped the other');
  });

  test('reset stops the queue and pending reports: nothing arrives afterwards', async () => {
    const app = await newApp(c, 'us', 5);
    await hook(c, app, receiver.url);
    await c.control('PUT', '/conversation/delivery', { reportDelayMs: 300 });
    await sendAll(c, app, ['+15550000001', '+15550000002', '+15550000003', '+15550000004', '+15550000005']);
    assert.equal((await c.control('POST', '/reset')).status, 200);
    await receiver.reset();
    await sleep(800);
    assert.deepEqual(receiver.received, []);
  });

  test('thousands of messages drain cheaply: every one reported once at a high outbound rate', async () => {
    const app = await newApp(c, 'us', 5000);
    await c.control('PUT', '/conversation/limits', { projectRps: 100_000 });
    await c.control('PUT', '/conversation/delivery', { queuedReport: false });
    const n = 3000;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => c.api('POST', '/messages:send', sendBody(app, `+1555${String(i).padStart(7, '0')}`))),
    );
    assert.ok(answers.every((a) => a.status === 200));
    const deadline = Date.now() + 5000;
    let made = 0;
    while (Date.now() < deadline) {
      made = (await c.control('GET', '/conversation/reports')).body.made.DELIVERED ?? 0;
      if (made === n) break;
      await sleep(20);
    }
    assert.equal(made, n);
    const s = (await c.control('GET', `/conversation/stats?appId=${app}`)).body;
    assert.deepEqual([s.accepted, s.distinctRecipients, s.duplicateRecipients], [n, n, 0]);
  });
});
