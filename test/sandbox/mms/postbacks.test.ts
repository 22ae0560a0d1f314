// MMS sandbox area, postbacks (docs/mms-wire.md "Postbacks"): for each accepted send N101 at once, then
// the final code after the delivery delay (N102 unless a suffix rule says E102, N103 or N202; N202 becomes
// E102 when fallback is disabled), with tracking-id, to and client-reference; a non-200 answer is retried
// after the account's gap, at most postbackRetries times. Blocked numbers are E114 with no postback; reset
// stops pending postbacks; "accept then answer late" send faults.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertRefused,
  assertSuccess,
  eventually,
  mmsSuite,
  saveBody,
  sendBody,
  sendSavedBody,
  sleep,
  waitFor,
  type Postback,
} from '../../helpers/sandbox-mms.js';

describe('MMS sandbox: postbacks', () => {
  const { receiver, send, control, account, delivery, callbacks, messages, recipients, stats } = mmsSuite();
  const byCode = (trackingId: string, code: string): Postback => {
    const p = receiver.of(trackingId).find((x) => x.code === code);
    assert.ok(p, `no ${code} for ${trackingId}: ${JSON.stringify(receiver.codes(trackingId))}`);
    return p;
  };

  test('an accepted send: N101 Sent, then N102 Delivered, with tracking-id, to, client-reference, timestamp; unsigned JSON', async () => {
    await account({ postbackUrl: receiver.url });
    await delivery({ delayMs: 20 });
    const id = assertSuccess(await send(sendBody('15551230001', { 'client-reference': 'rf:camp:1' })));
    const plain = assertSuccess(await send(sendBody('15551230002')));
    await waitFor(() => receiver.codes(id).length >= 2 && receiver.codes(plain).length >= 2, 'two postbacks per message');
    await sleep(50);
    assert.deepEqual(receiver.codes(id).sort(), ['N101', 'N102'], 'one postback per event, no more');
    assert.equal(receiver.received.length, 4);

    const sent = byCode(id, 'N101');
    const delivered = byCode(id, 'N102');
    const common = { origin: 'MMS_MT', 'tracking-id': id, to: '15551230001', 'operator-id': 1, 'client-reference': 'rf:camp:1', timestamp: undefined };
    assert.deepEqual({ ...sent, timestamp: undefined }, { ...common, code: 'N101', status: 'Sent' });
    assert.deepEqual({ ...delivered, timestamp: undefined }, { ...common, code: 'N102', status: 'Delivered' });
    for (const p of [sent, delivered]) assert.ok(!Number.isNaN(Date.parse(p.timestamp)), p.timestamp);
    assert.ok(Date.parse(delivered.timestamp) >= Date.parse(sent.timestamp));
    assert.equal('client-reference' in byCode(plain, 'N102'), false, 'no client-reference when the send had none');

    for (const r of receiver.received) {
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.deepEqual(
        Object.keys(r.headers).filter((h) => /signature|authorization/i.test(h)),
        [],
        'postbacks are not signed',
      );
    }
  });

  test('delivery rules by number suffix (first match wins): E102 with status-details, N103, N202, and N202 as E102 without fallback', async () => {
    await account({ postbackUrl: receiver.url });
    await delivery({
      rules: [
        { suffix: '13', code: 'E102' },
        { suffix: '3', code: 'N103' },
        { suffix: '7', code: 'N202' },
      ],
      delayMs: 10,
    });
    const mmsId = assertSuccess(await send(saveBody({ 'disable-fallback-sms': true })), 'savemms');
    const ids = {
      rejected: assertSuccess(await send(sendBody('15551230013'))),
      expired: assertSuccess(await send(sendBody('15551230023'))),
      asSms: assertSuccess(await send(sendBody('15551230007'))),
      noFallback: assertSuccess(await send(sendBody('15551230017', { 'disable-fallback-sms': true, 'fallback-sms-text': undefined }))),
      savedNoFallback: assertSuccess(await send(sendSavedBody(mmsId, '15551230027'))),
      delivered: assertSuccess(await send(sendBody('15551230000'))),
    };
    await waitFor(() => Object.values(ids).every((id) => receiver.codes(id).length >= 2), 'final postbacks');
    const final = Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, receiver.of(id).find((p) => p.code !== 'N101')]));
    assert.deepEqual(Object.fromEntries(Object.entries(final).map(([k, p]) => [k, [p?.code, p?.status]])), {
      rejected: ['E102', 'Rejected'],
      expired: ['N103', 'Expired'],
      asSms: ['N202', 'Delivered as SMS'],
      noFallback: ['E102', 'Rejected'],
      savedNoFallback: ['E102', 'Rejected'],
      delivered: ['N102', 'Delivered'],
    });
    assert.ok(final.rejected?.['status-details'], 'E102 says why');
    assert.equal(final.delivered?.['status-details'], undefined);

    // Rules are checked: only final codes, each with a suffix.
    for (const rules of [[{ suffix: '1', code: 'N101' }], [{ code: 'N102' }], [{ suffix: 1, code: 'N102' }], 'N102', [null]]) {
      assert.equal((await control('PUT', '/mms/delivery', { rules })).status, 400, JSON.stringify(rules));
    }
  });

  test('a postback answered 500 is retried after postbackRetryGapMs until 200', async () => {
    await account({ postbackUrl: receiver.url, postbackRetryGapMs: 40, postbackRetries: 5 });
    await delivery({ delayMs: 10 });
    receiver.failures = { N101: 2 };
    const id = assertSuccess(await send(sendBody('15551230001', { 'client-reference': 'rf:retry:1' })));
    await waitFor(() => receiver.codes(id).filter((c) => c === 'N101').length === 3 && receiver.codes(id).includes('N102'), 'N101 three times and N102');
    await sleep(100);
    const attempts = receiver.received.filter((r) => r.body['tracking-id'] === id && r.body.code === 'N101');
    assert.equal(attempts.length, 3, 'no attempt after the 200');
    assert.deepEqual(
      attempts.map((a) => a.body),
      Array.from({ length: 3 }, () => attempts[0]!.body),
      'the same postback each time',
    );
    for (let i = 1; i < attempts.length; i++) assert.ok(attempts[i]!.at - attempts[i - 1]!.at >= 35, `gap ${attempts[i]!.at - attempts[i - 1]!.at} ms`);
    assert.equal(receiver.codes(id).filter((c) => c === 'N102').length, 1);

    const record = (await callbacks()).find((c) => c.body.code === 'N101');
    assert.equal(record?.outcome, 'delivered');
    assert.deepEqual(
      record?.attempts.map((a) => a.status),
      [500, 500, 200],
    );
  });

  test('after postbackRetries retries a failing postback is given up', async () => {
    await account({ postbackUrl: receiver.url, postbackRetryGapMs: 20, postbackRetries: 2 });
    await delivery({ delayMs: 10 });
    receiver.failures = { N102: 100 };
    const id = assertSuccess(await send(sendBody('15551230001')));
    await eventually(async () => (await callbacks()).some((c) => c.body.code === 'N102' && c.outcome === 'failed'), 'N102 given up');
    await sleep(60);
    assert.deepEqual(receiver.codes(id).sort(), ['N101', 'N102', 'N102', 'N102'], 'one try and two retries');
    assert.deepEqual(
      (await callbacks()).find((c) => c.body.code === 'N102')?.attempts.map((a) => a.status),
      [500, 500, 500],
    );
  });

  test('no postback URL: the send is accepted and no postback is made', async () => {
    await delivery({ delayMs: 5 });
    assertSuccess(await send(sendBody('15551230001')));
    await sleep(50);
    assert.deepEqual(await callbacks(), []);
    assert.equal(receiver.received.length, 0);
    assert.equal((await stats()).accepted, 1);
  });

  test('a blocked number is 400 E114: not accepted, no postback; the list is replaced by the next PUT', async () => {
    await account({ postbackUrl: receiver.url, blockedNumbers: ['15551230013', '15551230014'] });
    await delivery({ delayMs: 5 });
    const blocked = await send(sendBody('15551230013', { 'client-reference': 'rf:blocked:1' }));
    assertRefused(blocked, 400, 'E114', 'blocked');
    assert.match(blocked.body['error-info']!, /15551230013/);
    const ok = assertSuccess(await send(sendBody('15551230015')));
    await waitFor(() => receiver.codes(ok).length >= 2, 'postbacks of the allowed send');
    await sleep(30);
    assert.deepEqual(
      receiver.received.map((r) => r.body.to),
      ['15551230015', '15551230015'],
    );
    assert.deepEqual(await messages('rf:blocked:1'), []);
    assert.deepEqual(await recipients(), { '15551230015': 1 });

    await account({ blockedNumbers: ['15551230014'] });
    assertSuccess(await send(sendBody('15551230013')), 'no longer blocked');
    assertRefused(await send(sendBody('15551230014')), 400, 'E114', 'still blocked');
    assert.equal((await control('PUT', '/mms/account', { blockedNumbers: '15551230013' })).status, 400);
    assert.equal((await control('PUT', '/mms/account', { postbackUrl: 'ftp://example.com/pb' })).status, 400);
  });

  test('reset stops the final postbacks still waiting for their delivery delay', async () => {
    await account({ postbackUrl: receiver.url });
    await delivery({ delayMs: 300 });
    const sentAt = Date.now();
    const id = assertSuccess(await send(sendBody('15551230001')));
    await waitFor(() => receiver.codes(id).includes('N101'), 'N101');
    assert.equal((await control('POST', '/reset')).status, 200);
    assert.ok(Date.now() - sentAt < 300, 'reset came before the delivery delay ran out');
    // The postback URL is set again at once: a final postback not stopped by reset would reach the receiver.
    await account({ postbackUrl: receiver.url });
    await sleep(sentAt + 450 - Date.now());
    assert.deepEqual(receiver.codes(id), ['N101'], 'no N102 after reset');
  });

  test('accept then answer late: the message is accepted, listed and posted back before its answer; savemms is not delayed', async () => {
    await account({ postbackUrl: receiver.url });
    const set = await control('PUT', '/mms/send-faults', { acceptThenDelayMs: 500, count: 1 });
    assert.deepEqual(set.body, { acceptThenDelayMs: 500, count: 1 });
    let t = Date.now();
    assertSuccess(await send(saveBody()), 'savemms');
    assert.ok(Date.now() - t < 350, 'savemms does not use the fault up');

    t = Date.now();
    let answeredAt = 0;
    const pending = send(sendBody('15551230001', { 'client-reference': 'rf:late:1' })).then((res) => {
      answeredAt = Date.now();
      return res;
    });
    await eventually(async () => (await messages('rf:late:1')).length === 1, 'the message listed');
    const [listed] = await messages('rf:late:1');
    await waitFor(() => receiver.codes(listed!.trackingId).includes('N101'), 'N101 before the answer');
    assert.equal(answeredAt, 0, 'not answered yet');
    const res = await pending;
    assert.equal(assertSuccess(res, 'late answer'), listed!.trackingId);
    assert.ok(answeredAt - t >= 490, `answered after ${answeredAt - t} ms`);

    t = Date.now();
    assertSuccess(await send(sendBody('15551230002')));
    assert.ok(Date.now() - t < 350, 'only `count` sends are late');
    assert.equal((await stats()).accepted, 2);
  });
});
