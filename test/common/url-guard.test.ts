// Where a subscription may send: public addresses only (unless configured), checked at creation and at connection,
// and what a delivery attempt does with a URL naming an address inside the network.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPublicAddress, privateAddressProblem, publicOnlyLookup, urlProblem } from '../../common/url-guard.js';
import { postEvent } from '../../workers/events/post.js';
import type { DeliveryJob } from '../../store/event-subscriptions.js';

const job = (url: string): DeliveryJob => ({
  deliveryId: 1,
  attempt: 1,
  subscriptionId: 'sub_x',
  url,
  secrets: [{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }],
  createdAt: new Date(),
  event: { eventId: 'evt_1', processId: 'verification:1', kind: 'verification', state: 'PENDING', at: new Date().toISOString() },
});

describe('subscription URLs', () => {
  test('public unicast addresses pass; loopback, private, link-local, unique-local, CGNAT, mapped loopback do not', () => {
    for (const ip of ['8.8.8.8', '2001:4860:4860::8888', '93.184.216.34']) assert.ok(isPublicAddress(ip), ip);
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.9',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
      'nonsense',
    ])
      assert.ok(!isPublicAddress(ip), ip);
  });

  test('a URL must be absolute http(s), without credentials or a fragment', () => {
    assert.equal(urlProblem('https://example.com/hook'), undefined);
    assert.match(urlProblem('ftp://example.com/x')!, /http or https/);
    assert.match(urlProblem('example.com/x')!, /absolute/);
    assert.match(urlProblem('https://u:p@example.com/x')!, /user name or password/);
    assert.match(urlProblem('https://example.com/x#frag')!, /fragment/);
  });

  test('a host naming or resolving to an address inside the network is refused', async () => {
    assert.match((await privateAddressProblem('http://127.0.0.1:8080/x'))!, /127\.0\.0\.1/);
    assert.match((await privateAddressProblem('http://[::1]/x'))!, /::1/);
    assert.match((await privateAddressProblem('http://localhost/x'))!, /loopback, private or reserved/);
    assert.equal(await privateAddressProblem('http://8.8.8.8/x'), undefined);
  });

  test('at connection: the lookup refuses a name resolving inside, and an address in the URL is refused before any connection', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => publicOnlyLookup('localhost', {}, (e) => resolve(e)));
    assert.equal(err?.code, 'EADDRNOTPUBLIC');
    const refused = await postEvent(job('http://10.0.0.1:9/x'), { timeoutMs: 1_000, allowPrivate: false });
    assert.equal(refused.ok, false);
    assert.match(refused.error!, /not a public address/);
    const byName = await postEvent(job('http://localhost:9/x'), { timeoutMs: 1_000, allowPrivate: false });
    assert.match(byName.error!, /not a public address/);
  });
});
