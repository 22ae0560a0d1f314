// Provisioning area of the sandbox: a CHATA sender's phone verification (register, a wrong code, the right one)
// and the project's CHATA business account with its ban reported as CHATA_WABA_ACCOUNT_CHANGED.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { account, type Body, waitFor, provisioningSandboxSuite, subscribe } from '../../helpers/sandbox-provisioning.js';

describe('provisioning sandbox: CHATA verification and account', () => {
  const { receiver, c } = provisioningSandboxSuite();

  test('a sender in ERROR for an unverified number: register sends a code, a wrong one is wrong_otp, the right one sends it back to review', async () => {
    await subscribe(c, receiver, ['CHATA_WABA_ACCOUNT_CHANGED']);
    // A sender whose review never ends within the test: still PENDING however slow the machine is.
    await c.control('PUT', '/provisioning/reviewer', { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 600_000 } });
    const pending = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550199', displayName: 'Acme' })).body.id as string;
    const early = await c.api('POST', `/chata/senders/${pending}/register`, { method: 'SMS' });
    assert.equal(early.status, 409, 'PENDING: nothing to verify yet');
    assert.deepEqual(early.body.additionalInformation, { state: 'PENDING' });

    await c.control('PUT', '/provisioning/reviewer', { chataSenders: { outcome: 'error', errorCode: 'NO_VERIFIED_PHONE_NUMBER', delayMs: 20 } });
    const id = (await c.api('POST', '/chata/senders', { phoneNumber: '+14155550123', displayName: 'Acme' })).body.id as string;
    await waitFor(() => receiver.received.length === 1, 'the error');

    assert.equal((await c.api('POST', `/chata/senders/${id}/verify`, { code: '123456' })).status, 409, 'no code requested yet');
    const badMethod = await c.api('POST', `/chata/senders/${id}/register`, { method: 'FAX' });
    assert.equal(badMethod.status, 400);
    assert.match(JSON.stringify(badMethod.body.validationErrors), /method.*must be one of SMS, VOICE/);
    const sent = await c.api('POST', `/chata/senders/${id}/register`, { method: 'VOICE' });
    assert.equal(sent.status, 200);
    assert.deepEqual(
      { id: sent.body.id, method: sent.body.method, verificationCodeSent: sent.body.verificationCodeSent },
      { id, method: 'VOICE', verificationCodeSent: true },
    );
    const code = (await c.control('GET', `/provisioning/chata-senders/${id}/verification`)).body.code as string;
    assert.match(code, /^\d{6}$/);

    const short = await c.api('POST', `/chata/senders/${id}/verify`, { code: '12345' });
    assert.equal(short.status, 400);
    assert.equal(short.body.errorCode, 'invalid_input');
    const wrong = await c.api('POST', `/chata/senders/${id}/verify`, { code: code === '000000' ? '000001' : '000000' });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.errorCode, 'wrong_otp');
    assert.equal((await c.api('GET', `/chata/senders/${id}`)).body.state, 'ERROR', 'unchanged by a wrong code');
    assert.equal((await c.control('GET', `/provisioning/chata-senders/${id}/verification`)).body.wrongAttempts, 1);

    await c.control('PUT', '/provisioning/reviewer', { chataSenders: { outcome: 'activate', delayMs: 20 } });
    const ok = await c.api('POST', `/chata/senders/${id}/verify`, { code });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.state, 'PENDING');
    assert.equal(ok.body.errorCode, undefined);
    await waitFor(() => receiver.received.length === 3, 'PENDING, then ACTIVE');
    assert.deepEqual(
      receiver.received.map((r) => r.event.details.state),
      ['ERROR', 'PENDING', 'ACTIVE'],
    );
    assert.equal((await c.control('GET', `/provisioning/chata-senders/${id}/verification`)).status, 404, 'the code is spent');
  });

  test('the account: ONBOARDED on first read; a ban and its lift are read back and reported on the account', async () => {
    await subscribe(c, receiver, ['CHATA_WABA_ACCOUNT_CHANGED']);
    const first = await c.api('GET', '/chata');
    assert.equal(first.status, 200);
    assert.equal(first.body.state, 'ONBOARDED');
    assert.equal(first.body.banState, undefined);
    const accountId = first.body.id as string;

    const bad = await c.control('PUT', `/provisioning/chata-account/${account.projectId}/ban`, { banState: 'BANNED' });
    assert.equal(bad.status, 400);
    assert.equal((await c.control('PUT', '/provisioning/chata-account/no-such-project/ban', { banState: 'DISABLE' })).status, 404);

    const ban = await c.control('PUT', `/provisioning/chata-account/${account.projectId}/ban`, { banState: 'DISABLE', banDate: '2026-11-26T10:00:00Z' });
    assert.equal(ban.status, 200);
    const read = (await c.api('GET', '/chata')).body as Body;
    assert.deepEqual({ id: read.id, banState: read.banState, banDate: read.banDate }, { id: accountId, banState: 'DISABLE', banDate: '2026-11-26T10:00:00Z' });
    await c.control('PUT', `/provisioning/chata-account/${account.projectId}/ban`, { banState: 'REINSTATE' });
    await waitFor(() => receiver.received.length === 2, 'two account events');
    assert.deepEqual(
      receiver.received.map((r) => [r.event.resourceType, r.event.resourceId, r.event.details.banState, r.event.sequence]),
      [
        ['ACCOUNT', accountId, 'DISABLE', 1],
        ['ACCOUNT', accountId, 'REINSTATE', 2],
      ],
    );
    assert.equal((await c.api('GET', '/chata')).body.banState, 'REINSTATE');
  });
});
