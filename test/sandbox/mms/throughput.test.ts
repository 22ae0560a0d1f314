// MMS sandbox area, the account's throughput limit (docs/mms-wire.md "Throughput"): beyond it a call is
// 429 E113 with Retry-After: 1 ("slow down"), counted in stats.refusedE113 and not accepted; the same call
// succeeds a second later. Refused calls do not use up the limit; the limit is settable and reset restores 50.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertRefused, assertSuccess, mmsSuite, saveBody, sendBody, sleep } from '../../helpers/sandbox-mms.js';

describe('MMS sandbox: account throughput (E113)', () => {
  const { send, stats, recipients, account, control } = mmsSuite();

  test('beyond throughputPerSecond a call is 429 E113 with Retry-After 1; the same call succeeds after a second', async () => {
    await account({ throughputPerSecond: 3 });
    assertSuccess(await send(sendBody('15551230001')), 'first');
    assertSuccess(await send(saveBody()), 'savemms counts too');
    assertSuccess(await send(sendBody('15551230002')), 'third');
    const thirdAnsweredAt = Date.now();
    const refused = await send(sendBody('15551230003'));
    assertRefused(refused, 429, 'E113', 'fourth in the second');
    assert.equal(refused.headers['retry-after'], '1');
    assertRefused(await send(sendBody('15551230004')), 429, 'E113', 'fifth in the second');
    let s = await stats();
    assert.deepEqual([s.accepted, s.saved, s.refusedE113, s.requests], [2, 1, 2, 5]);
    assert.deepEqual(await recipients(), { '15551230001': 1, '15551230002': 1 }, 'a refused call sends nothing');

    // The window slides: once the last accepted call is a second old, the same call goes through.
    await sleep(thirdAnsweredAt + 1_005 - Date.now());
    assertSuccess(await send(sendBody('15551230003')), 'the refused call, retried');
    s = await stats();
    assert.deepEqual([s.accepted, s.refusedE113, s.duplicateRecipients], [3, 2, 0]);
    assert.deepEqual(await recipients(), { '15551230001': 1, '15551230002': 1, '15551230003': 1 });
  });

  test('calls refused for another reason (E104, E110, E223, E114) do not use up the throughput', async () => {
    await account({ throughputPerSecond: 2, blockedNumbers: ['15551230099'] });
    assertRefused(await send(sendBody(), { headers: { 'x-api-key': 'wrong' } }), 401, 'E104', 'bad key');
    assertRefused(await send(sendBody('+15551230001')), 400, 'E110', 'bad to');
    assertRefused(await send(sendBody('15551230001', { slide: [] })), 400, 'E223', 'no slides');
    assertRefused(await send(sendBody('15551230099')), 400, 'E114', 'blocked number');
    assertSuccess(await send(sendBody('15551230001')), 'first valid');
    assertSuccess(await send(sendBody('15551230002')), 'second valid');
    assertRefused(await send(sendBody('15551230003')), 429, 'E113', 'third valid');
    const s = await stats();
    assert.deepEqual([s.accepted, s.refusedE113, s.requests], [2, 1, 7]);
  });

  test('the default is 50 per second; a new limit applies at once; reset restores the default', async () => {
    const current = await account({});
    assert.equal(current.throughputPerSecond, 50);
    const burst = await Promise.all(Array.from({ length: 51 }, (_, i) => send(sendBody(`1555200${String(i).padStart(4, '0')}`))));
    assert.equal(burst.filter((r) => r.status === 200).length, 50);
    const refused = burst.filter((r) => r.status === 429);
    assert.equal(refused.length, 1);
    assertRefused(refused[0]!, 429, 'E113', 'the 51st');
    assert.equal((await stats()).refusedE113, 1);

    assert.equal((await account({ throughputPerSecond: 100 })).throughputPerSecond, 100);
    assertSuccess(await send(sendBody('15551230001')), 'within the raised limit');

    assert.equal((await control('POST', '/reset')).status, 200);
    assert.equal((await account({})).throughputPerSecond, 50);
    assert.deepEqual([(await stats()).accepted, (await stats()).refusedE113], [0, 0]);
  });

  test('the control route refuses a throughput that is not a number from 1 to 100,000 and keeps the old one', async () => {
    await account({ throughputPerSecond: 7 });
    for (const bad of [0, -1, 100_001, '10', null, 1.5e300]) {
      const res = await control('PUT', '/mms/account', { throughputPerSecond: bad });
      assert.equal(res.status, 400, `throughputPerSecond ${String(bad)}`);
    }
    assert.equal((await account({})).throughputPerSecond, 7);
  });
});
