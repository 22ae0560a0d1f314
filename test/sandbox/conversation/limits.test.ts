// Conversation sandbox area: the app's outbound rate (the pace its MT queue drains at, not a refusal),
// the per-project limit and the full MT queue (429 RESOURCE_EXHAUSTED with Retry-After), injected faults that must not count as accepted, the
// per-recipient counts and duplicates, "accept then time out" sends, and reset.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { account, conversationSuite, newApp, sendBody, sleep, type Body } from '../../helpers/sandbox-conversation.js';

describe('conversation sandbox: limits, faults, counts', () => {
  const { c, sandbox } = conversationSuite();
  const send = (app: string, to: string, extra: Record<string, unknown> = {}) => c.api('POST', '/messages:send', sendBody(app, to, extra));
  const stats = async (app?: string) => (await c.control('GET', `/conversation/stats${app ? `?appId=${app}` : ''}`)).body;

  test('per app: sending faster than rate_limits.outbound is not refused, the MT queue takes it and drains at that rate (spec Limits); its peak is kept', async () => {
    const app = await newApp(c, 'us', 3);
    for (let i = 0; i < 6; i++) assert.equal((await send(app, `+1555000000${i}`)).status, 200, 'twice the rate in a second is accepted');
    const s = await stats(app);
    assert.deepEqual([s.accepted, s.refused429, s.requests], [6, 0, 6]);
    const queueOf = async () => (await c.control('GET', '/conversation/apps')).body.apps.find((a: Body) => a.id === app).queue;
    const q = await queueOf();
    assert.ok(q.length >= 2 && q.length <= 5, `queued behind the drain rate: ${JSON.stringify(q)}`);
    assert.ok(q.peak >= q.length && q.peak <= 6, `the peak is kept: ${JSON.stringify(q)}`);
    // 3 per second: six messages have all left about 2 s after the first.
    const deadline = Date.now() + 4_000;
    while ((await queueOf()).length > 0) {
      assert.ok(Date.now() < deadline, 'the queue drains');
      await sleep(50);
    }
    assert.equal((await queueOf()).peak, q.peak, 'the peak outlives the queue');
    // A rate set by the control route applies at once.
    assert.equal((await c.control('PUT', `/conversation/apps/${app}`, { outboundRate: 50 })).body.rate_limits.outbound, 50);
    assert.equal((await c.api('GET', `/apps/${app}`)).body.rate_limits.outbound, 50);
  });

  test('per project: requests of every endpoint count against the settable limit (default 800 per second)', async () => {
    assert.deepEqual((await c.control('GET', '/conversation/limits')).body, { projectRps: 800 });
    const app = await newApp(c, 'us', 1000);
    assert.deepEqual((await c.control('PUT', '/conversation/limits', { projectRps: 4 })).body, { projectRps: 4 });
    assert.equal((await c.api('GET', '/apps')).status, 200);
    assert.equal((await c.api('GET', `/apps/${app}`, undefined, 'eu')).status, 404, 'counted on any region');
    assert.equal((await send(app, '+15550000001')).status, 200);
    assert.equal((await c.api('GET', '/messages')).status, 200);
    const refused = await send(app, '+15550000002');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.status, 'RESOURCE_EXHAUSTED');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal((await c.api('GET', '/apps')).status, 429);
    assert.equal((await stats()).accepted, 1);
    assert.equal((await stats()).refused429, 1);
    assert.deepEqual(
      (await c.control('PUT', '/conversation/limits', { projectRps: 0 })).body.error.details.map((d: Body) => d.field),
      ['projectRps'],
    );
  });

  test('a full MT queue answers 429 with Retry-After until the queue drains', async () => {
    const app = await newApp(c, 'us', 100);
    const set = await c.control('PUT', `/conversation/apps/${app}`, { queueCapacity: 2, paused: true });
    assert.deepEqual(set.body.queue, { length: 0, capacity: 2, paused: true, peak: 0 });
    assert.equal((await send(app, '+15550000001')).status, 200);
    assert.equal((await send(app, '+15550000002')).status, 200);
    const full = await send(app, '+15550000003');
    assert.equal(full.status, 429);
    assert.equal(full.body.error.status, 'RESOURCE_EXHAUSTED');
    assert.match(full.body.error.message, /queue/);
    assert.equal(full.headers['retry-after'], '1');
    assert.equal((await c.control('PUT', `/conversation/apps/${app}`, { paused: false })).body.queue.paused, false);
    await sleep(100);
    assert.equal((await c.control('GET', '/conversation/apps')).body.apps[0].queue.length, 0);
    assert.equal((await send(app, '+15550000003')).status, 200);
    assert.equal((await stats(app)).accepted, 3);
  });

  test('a core injected fault answers before the area: the send is neither accepted nor listed, but is counted as a request', async () => {
    const app = await newApp(c, 'us');
    const fault = await c.control('POST', '/faults', { area: 'conversation', pathContains: 'messages:send', status: 503, count: 1, retryAfterSeconds: 2 });
    assert.equal(fault.status, 200);
    const faulted = await send(app, '+15550000001', { message_metadata: 'rf:c:1' });
    assert.equal(faulted.status, 503);
    assert.equal(faulted.body.error.status, 'UNAVAILABLE');
    assert.equal(faulted.headers['retry-after'], '2');
    await c.control('POST', '/faults', { area: 'conversation', status: 429, count: 1, retryAfterSeconds: 1 });
    assert.equal((await send(app, '+15550000001')).status, 429);
    let s = await stats(app);
    assert.deepEqual([s.accepted, s.requests, s.refused429, s.distinctRecipients], [0, 2, 1, 0]);
    assert.deepEqual((await c.api('GET', `/messages?app_id=${app}`)).body.messages, []);
    assert.equal((await send(app, '+15550000001', { message_metadata: 'rf:c:1' })).status, 200, 'the retry is the only message');
    s = await stats(app);
    assert.deepEqual([s.accepted, s.requests, s.duplicateRecipients], [1, 3, 0]);
    assert.equal((await c.api('GET', `/messages?app_id=${app}`)).body.messages.length, 1);
  });

  test('stats and recipients: accepted per identity, distinct, duplicates with samples, per app and overall', async () => {
    const app = await newApp(c, 'us', 100);
    const other = await newApp(c, 'eu', 100);
    for (const to of ['+15550000001', '+15550000002', '+15550000001', '+15550000003', '+15550000001', '+15550000002']) {
      assert.equal((await send(app, to)).status, 200);
    }
    assert.equal((await c.api('POST', '/messages:send', sendBody(other, '+15550000003'), 'eu')).status, 200);
    assert.equal((await send(app, 'bad')).status, 400);
    assert.deepEqual(await stats(app), {
      accepted: 6,
      distinctRecipients: 3,
      duplicateRecipients: 2,
      duplicateSamples: ['+15550000001', '+15550000002'],
      refused429: 0,
      requests: 7,
    });
    const all = await stats();
    assert.deepEqual([all.accepted, all.distinctRecipients, all.duplicateRecipients, all.requests], [7, 3, 3, 8]);
    assert.deepEqual((await c.control('GET', `/conversation/recipients?appId=${app}`)).body, {
      counts: { '+15550000001': 3, '+15550000002': 2, '+15550000003': 1 },
    });
    assert.deepEqual((await c.control('GET', `/conversation/recipients?appId=${other}`)).body.counts, { '+15550000003': 1 });
    assert.equal((await c.control('GET', '/conversation/stats?appId=zzz')).status, 400);
  });

  test('accept then time out: the message is accepted and listed at once, the answer comes only after the delay', async () => {
    const app = await newApp(c, 'us', 100);
    assert.deepEqual((await c.control('PUT', '/conversation/send-faults', { acceptThenDelayMs: 400, count: 1 })).body, { acceptThenDelayMs: 400, count: 1 });
    const started = Date.now();
    let answeredAt = 0;
    const pending = send(app, '+15550000001', { message_metadata: 'rf:camp:7' }).then((res) => {
      answeredAt = Date.now();
      return res;
    });
    await sleep(100);
    assert.equal(answeredAt, 0, 'no answer yet');
    const listed = (await c.api('GET', `/messages?app_id=${app}&channel_identity=%2B15550000001`)).body.messages;
    assert.deepEqual(
      listed.map((m: Body) => m.metadata),
      ['rf:camp:7'],
      'the platform has the message',
    );
    assert.equal((await stats(app)).accepted, 1);
    const res = await pending;
    assert.equal(res.status, 200);
    assert.equal(res.body.message_id, listed[0].id);
    assert.ok(answeredAt - started >= 390, `answered after ${answeredAt - started} ms`);
    assert.equal((await c.control('GET', '/conversation/send-faults')).body.count, 0);
    const t = Date.now();
    assert.equal((await send(app, '+15550000002')).status, 200);
    assert.ok(Date.now() - t < 300, 'only `count` sends are delayed');
    // A refused send does not use the fault up.
    await c.control('PUT', '/conversation/send-faults', { acceptThenDelayMs: 200, count: 1 });
    assert.equal((await send(app, 'oops')).status, 400);
    assert.equal((await c.control('GET', '/conversation/send-faults')).body.count, 1);
  });

  test('accept then time out over HTTP: a client with a short timeout loses the answer, the platform keeps the message', async () => {
    const app = await newApp(c, 'us', 100);
    // Timings with room for a loaded machine: the platform has 700 ms to accept, and holds its answer 2 s.
    await c.control('PUT', '/conversation/send-faults', { acceptThenDelayMs: 2000, count: 1 });
    const url = await sandbox().listen();
    const token = (
      await c.raw('POST', '/auth/oauth2/token', 'grant_type=client_credentials', {
        authorization: `Basic ${Buffer.from(`${account.keyId}:${account.keySecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      })
    ).body.access_token as string;
    await assert.rejects(
      fetch(`${url}${c.base('us')}/messages:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(sendBody(app, '+15550000001', { message_metadata: 'rf:camp:9' })),
        signal: AbortSignal.timeout(700),
      }),
      /timeout|abort/i,
    );
    const listed = (await c.api('GET', `/messages?app_id=${app}&channel_identity=%2B15550000001`)).body.messages;
    assert.deepEqual(
      listed.map((m: Body) => m.metadata),
      ['rf:camp:9'],
    );
    await sleep(1500);
    const s = await stats(app);
    assert.deepEqual([s.accepted, s.requests], [1, 1], 'the call the caller gave up on is counted as a request');
  });

  test('reset forgets apps, messages, counts and settings', async () => {
    const app = await newApp(c, 'us', 100);
    await send(app, '+15550000001');
    await c.control('PUT', '/conversation/limits', { projectRps: 10 });
    await c.control('PUT', '/conversation/delivery', { rules: [{ suffix: '1', status: 'FAILED' }], reportDelayMs: 50 });
    await c.control('PUT', '/conversation/webhook-faults', { drop: 2, reorder: true });
    await c.control('PUT', '/conversation/send-faults', { acceptThenDelayMs: 100, count: 3 });
    await c.control('PUT', '/conversation/webhook-retry', { scheduleMs: [10] });
    assert.equal((await c.control('POST', '/reset')).status, 200);
    assert.equal((await c.api('GET', `/apps/${app}`)).status, 404);
    assert.deepEqual((await c.api('GET', '/messages')).body.messages, []);
    assert.deepEqual(await stats(), { accepted: 0, distinctRecipients: 0, duplicateRecipients: 0, duplicateSamples: [], refused429: 0, requests: 0 });
    assert.deepEqual((await c.control('GET', '/conversation/recipients')).body, { counts: {} });
    assert.deepEqual((await c.control('GET', '/conversation/limits')).body, { projectRps: 800 });
    assert.deepEqual((await c.control('GET', '/conversation/delivery')).body, { rules: [], reportDelayMs: 0, queuedReport: true });
    assert.deepEqual((await c.control('GET', '/conversation/webhook-faults')).body, { drop: 0, duplicate: 0, reorder: false, delayMs: 0 });
    assert.deepEqual((await c.control('GET', '/conversation/send-faults')).body, { acceptThenDelayMs: 0, count: 0 });
    assert.deepEqual((await c.control('GET', '/conversation/webhook-retry')).body, { scheduleMs: [1000, 2000, 4000, 8000, 16000], timeoutMs: 10000 });
    assert.deepEqual((await c.control('GET', '/conversation/apps')).body, { apps: [] });
  });
});
