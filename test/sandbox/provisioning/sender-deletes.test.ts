// Provisioning area of the sandbox: DELETE of RCS, CHATA and CHATB senders (docs/provisioning-wire.md,
// the decisions under each sender): launched or active is a 409, anything else is deleted; CHATA keeps a
// DELETED sender readable, RCS and CHATB remove it; no webhook; a pending review is dropped.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { P, type Body, sleep, waitFor, bearerToken, provisioningSandboxSuite, rcsSenderBody, subscribe } from '../../helpers/sandbox-provisioning.js';

const rcsSender = (over: Record<string, unknown> = {}) => rcsSenderBody({ countries: ['GB'], ...over });
const ANSWERS = { brand_description: 'Parcels', message_types: 'Tracking updates', opt_in: 'At checkout', opt_out: 'Send STOP' };

/** The 409 of a sender that cannot be deleted, in the area's error format. */
function assertRefused(res: { status: number; body: Body }, state: string): void {
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(res.body.errorCode, 'conflict');
  assert.match(res.body.message, new RegExp(`is ${state}: an? (launched|active) sender cannot be deleted`));
  assert.equal(typeof res.body.resolution, 'string');
  assert.ok(res.body.resolution.length > 0, 'a resolution is given');
  assert.deepEqual(res.body.additionalInformation, { state });
}

describe('provisioning sandbox: sender deletes', () => {
  const { receiver, c, sandbox } = provisioningSandboxSuite();

  test('auth as for every route; unknown senders are 404 not_found on each channel', async () => {
    for (const path of ['/rcs/senders/nope', '/chata/senders/nope', '/chatb/senders/nope']) {
      const res = await c.api('DELETE', path);
      assert.equal(res.status, 404, path);
      assert.equal(res.body.errorCode, 'not_found');
    }
    const id = (await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL', status: 'DRAFT' })).body.id as string;
    assert.equal((await c.raw('DELETE', `${P}/chatb/senders/${id}`)).status, 401);
    const other = await c.raw('DELETE', `/provisioning/v1/projects/someone-else/chatb/senders/${id}`, undefined, {
      authorization: `Bearer ${await bearerToken(sandbox())}`,
    });
    assert.equal(other.status, 403);
    assert.equal((await c.api('GET', `/chatb/senders/${id}`)).body.state, 'DRAFT', 'refused deletes change nothing');
  });

  test('RCS: a DRAFT is removed (404 after, not listed) without a webhook; LAUNCHED is a 409', async () => {
    await subscribe(c, receiver, ['RCS_SENDER_CREATED', 'RCS_SENDER_STATUS_UPDATED', 'RCS_SENDER_OPERATOR_STATUS_UPDATED']);
    const draft = (await c.api('POST', '/rcs/senders', rcsSender())).body.id as string;
    const res = await c.api('DELETE', `/rcs/senders/${draft}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {});
    assert.equal((await c.api('GET', `/rcs/senders/${draft}`)).status, 404);
    assert.equal((await c.api('DELETE', `/rcs/senders/${draft}`)).status, 404);
    assert.deepEqual((await c.api('GET', '/rcs/senders')).body.senders, []);

    const launched = (await c.api('POST', '/rcs/senders', rcsSender())).body.id as string;
    await c.api('PUT', `/rcs/senders/${launched}/questionnaire`, { answers: ANSWERS });
    await c.api('POST', `/rcs/senders/${launched}:launch`, { contact: { email: 'ops@acme.example' } });
    await waitFor(() => receiver.received.some((r) => r.event.resourceId === launched && r.event.details.state === 'LAUNCHED'), 'LAUNCHED');
    assertRefused(await c.api('DELETE', `/rcs/senders/${launched}`), 'LAUNCHED');
    assert.equal((await c.api('GET', `/rcs/senders/${launched}`)).body.state, 'LAUNCHED');
    await sleep(50);
    assert.ok(
      receiver.received.filter((r) => r.event.resourceId === draft).every((r) => r.event.trigger === 'RCS_SENDER_CREATED'),
      'nothing emitted for the delete',
    );
  });

  test('RCS: PARTIALLY_LAUNCHED is a 409; IN_REVIEW is deleted and its review dropped', async () => {
    await subscribe(c, receiver, ['RCS_SENDER_STATUS_UPDATED']);
    await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'launch', delayMs: 20, rejectCountries: ['DE'] } });
    const partial = (await c.api('POST', '/rcs/senders', rcsSender({ countries: ['GB', 'DE'] }))).body.id as string;
    await c.api('PUT', `/rcs/senders/${partial}/questionnaire`, { answers: ANSWERS });
    await c.api('POST', `/rcs/senders/${partial}:launch`, { contact: { email: 'ops@acme.example' } });
    await waitFor(() => receiver.received.some((r) => r.event.details.state === 'PARTIALLY_LAUNCHED'), 'PARTIALLY_LAUNCHED');
    assertRefused(await c.api('DELETE', `/rcs/senders/${partial}`), 'PARTIALLY_LAUNCHED');

    await c.control('PUT', '/provisioning/reviewer', { rcs: { outcome: 'launch', delayMs: 150 } });
    const reviewing = (await c.api('POST', '/rcs/senders', rcsSender({ displayName: 'Beta' }))).body.id as string;
    await c.api('PUT', `/rcs/senders/${reviewing}/questionnaire`, { answers: ANSWERS });
    assert.equal((await c.api('POST', `/rcs/senders/${reviewing}:launch`, { contact: { email: 'ops@acme.example' } })).body.state, 'IN_REVIEW');
    assert.equal((await c.api('DELETE', `/rcs/senders/${reviewing}`)).status, 200);
    await sleep(250);
    const after = receiver.received.filter((r) => r.event.resourceId === reviewing).map((r) => r.event.details.state);
    assert.deepEqual(after, ['IN_REVIEW'], 'no decision after the delete');
  });

  test('CHATA: a PENDING sender becomes DELETED, stays readable, a second delete answers it; ACTIVE is a 409', async () => {
    await subscribe(c, receiver, ['CHATA_WABA_ACCOUNT_CHANGED']);
    await c.control('PUT', '/provisioning/reviewer', { chataSenders: { delayMs: 150 } });
    const pending = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550100', displayName: 'Acme' })).body;
    assert.equal(pending.state, 'PENDING');
    const res = await c.api('DELETE', `/chata/senders/${pending.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'DELETED');
    const again = await c.api('DELETE', `/chata/senders/${pending.id}`);
    assert.deepEqual([again.status, again.body.state], [200, 'DELETED']);
    await sleep(250);
    assert.equal((await c.api('GET', `/chata/senders/${pending.id}`)).body.state, 'DELETED', 'the review was dropped');
    assert.equal((await c.api('GET', '/chata/senders?filterStates=DELETED')).body.totalSize, 1);
    assert.deepEqual(receiver.received, [], 'no webhook for the delete');

    await c.control('PUT', '/provisioning/reviewer', { chataSenders: { delayMs: 20 } });
    const active = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550101', displayName: 'Acme' })).body.id as string;
    await waitFor(() => receiver.received.some((r) => r.event.resourceId === active), 'ACTIVE');
    assertRefused(await c.api('DELETE', `/chata/senders/${active}`), 'ACTIVE');
    assert.equal((await c.api('GET', `/chata/senders/${active}`)).body.state, 'ACTIVE');
  });

  test('CHATB: DRAFT and REJECTED are removed; ACTIVE is a 409; no webhook', async () => {
    await subscribe(c, receiver, ['CHATB_SENDER_COMMENT_ADDED', 'CHATB_SENDER_REJECTED', 'CHATB_SENDER_INACTIVE']);
    const draft = (await c.api('POST', '/chatb/senders', { displayName: 'Acme', categoryCode: 'RETAIL', status: 'DRAFT' })).body.id as string;
    const res = await c.api('DELETE', `/chatb/senders/${draft}`);
    assert.deepEqual([res.status, res.body], [200, {}]);
    assert.equal((await c.api('GET', `/chatb/senders/${draft}`)).status, 404);
    assert.equal((await c.api('DELETE', `/chatb/senders/${draft}`)).status, 404);

    await c.control('PUT', '/provisioning/reviewer', { chatbSenders: { outcome: 'reject', delayMs: 20 } });
    const rejected = (await c.api('POST', '/chatb/senders', { displayName: 'Beta', categoryCode: 'RETAIL' })).body.id as string;
    await waitFor(() => receiver.received.length === 1, 'the rejection');
    assert.equal((await c.api('DELETE', `/chatb/senders/${rejected}`)).status, 200);

    await c.control('PUT', '/provisioning/reviewer', { chatbSenders: { outcome: 'activate', delayMs: 20 } });
    const active = (await c.api('POST', '/chatb/senders', { displayName: 'Gamma', categoryCode: 'RETAIL' })).body.id as string;
    await waitFor(() => receiver.received.length === 2, 'the activation');
    assertRefused(await c.api('DELETE', `/chatb/senders/${active}`), 'ACTIVE');
    await sleep(50);
    assert.equal(receiver.received.length, 2, 'no webhook for the deletes');
    assert.deepEqual(
      (await c.api('GET', '/chatb/senders')).body.senders.map((s: Body) => s.id),
      [active],
    );
  });
});
