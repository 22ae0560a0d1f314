// The caller's reference reaches the platform; relayflow's routing token travels in the platform `custom`
// and routes callbacks; a resend with the same reference is a new platform verification; the guard knows
// relayflow's own verifications by the token.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ulid } from 'ulid';
import { createPlatformClients } from '../../../platform/index.js';
import { useHarness } from '../../helpers/harness.js';
import { freshNumber, messageFor, platformStarts, postCallback, report, startOnPlatform, startVerification, statusOf } from '../../helpers/verification.js';

const TOKEN = /^rf-[0-9A-Z]{26}\.0\.1$/;

describe('verification reference and routing token', () => {
  const h = useHarness({ env: { RELAYFLOW_VERIFICATION_GUARD_MAX: '2' } });

  test("the platform gets the caller's reference and the token as custom; the caller's custom stays in relayflow", async () => {
    const identity = freshNumber();
    const reference = `order-42-${ulid()}`;
    const s = await startVerification(h, { identity, method: 'sms', reference, custom: 'my-own-data' });
    const [sent] = await platformStarts(h, identity);
    assert.equal(sent!.reference, reference);
    assert.match(sent!.custom!, TOKEN);
    assert.ok(sent!.custom!.startsWith(`rf-${s.processId.split(':')[1]}.`), 'the token names the process');

    const onPlatform = await createPlatformClients(h.config.platform).verification.statusByReference(reference);
    assert.equal(onPlatform.id, s.current!.verificationId);
    assert.equal(onPlatform.custom, sent!.custom);

    // The SMS receipt (the platform's VerificationSmsDeliveredEvent) carries the caller's reference: it is routed by custom.
    let view = await statusOf(h, s.processId);
    for (let i = 0; i < 50 && !view.details.smsDelivery; i++) {
      await new Promise((r) => setTimeout(r, 100));
      view = await statusOf(h, s.processId);
    }
    assert.equal(view.details.smsDelivery, 'Successful');
    assert.equal(view.details.custom, 'my-own-data');
    assert.equal((view.details.platformVerifications as { token: string }[])[0]!.token, sent!.custom);
  });

  test('a resend with the same caller reference creates a second platform verification, which then verifies', async () => {
    const identity = freshNumber();
    const reference = `order-42-${ulid()}`;
    const s = await startVerification(h, { identity, method: 'sms', reference, policy: { resendCooldownSeconds: 0, maxResends: 1 } });
    const resent = await h.api({ method: 'POST', url: `/v1/verifications/${encodeURIComponent(s.processId)}/resend` });
    assert.equal(resent.statusCode, 200, resent.body);
    const second = resent.json().current.verificationId as string;
    assert.notEqual(second, s.current!.verificationId, 'not the first one found again by reference');
    const sent = await platformStarts(h, identity);
    assert.deepEqual(
      sent.map((b) => b.reference),
      [reference, reference],
    );
    assert.deepEqual(
      sent.map((b) => b.custom!.split('.').slice(1).join('.')),
      ['0.1', '0.2'],
    );
    const sms = await messageFor(h, identity, second);
    assert.equal((await report(h, s.processId, sms.code!)).json().result, 'SUCCESSFUL');
    await h.waitForState(s.processId, 'SUCCESSFUL');
  });

  test('a result callback is routed by the token in custom, not by the reference', async () => {
    const identity = freshNumber();
    const reference = `order-42-${ulid()}`;
    const s = await startVerification(h, { identity, method: 'sms', reference });
    const token = (await platformStarts(h, identity))[0]!.custom!;
    const res = await postCallback(h, {
      event: 'VerificationResultEvent',
      id: s.current!.verificationId,
      method: 'sms',
      identity: { type: 'number', endpoint: identity },
      status: 'DENIED',
      reason: 'Fraud',
      reference,
      custom: token,
      price: { amount: 0.01 }, // unknown fields are accepted
    });
    assert.equal(res.status, 200, await res.text());
    const ended = await h.waitForState(s.processId, 'DENIED');
    assert.match((ended.history as { reason?: string }[]).at(-1)!.reason!, /Fraud/);
  });

  test("the guard allows relayflow's own verifications by their token, so starts with a reference are not counted twice", async () => {
    const identity = freshNumber();
    // GUARD_MAX=2: each start's VerificationRequestEvent carries the caller's reference; were it admitted as an
    // SDK verification, the second start would be refused.
    for (let i = 0; i < 2; i++) {
      const s = await startVerification(h, { identity, method: 'sms', reference: `order-${ulid()}` });
      assert.equal(s.state, 'PENDING');
    }
    assert.equal((await h.api({ method: 'POST', url: '/v1/verifications', payload: { identity, method: 'sms' } })).statusCode, 429);
    assert.equal((await startOnPlatform(h, identity)).status, 403, 'an SDK verification over the limit is denied');
    const request = (custom?: string) =>
      postCallback(h, {
        event: 'VerificationRequestEvent',
        id: `sdk-${ulid()}`,
        method: 'sms',
        identity: { type: 'number', endpoint: identity },
        reference: 'order-9',
        ...(custom ? { custom } : {}),
      });
    assert.deepEqual(await (await request(`rf-${ulid()}.0.1`)).json(), { action: 'allow' });
    assert.deepEqual(await (await request('not-a-token')).json(), { action: 'deny' });
  });
});
