// 403 BILLING_CREDIT_LIMIT_BREACHED (spec D): its own error and send class, wherever the error body names it, and
// never for a plain permission refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlatformAuthError, PlatformBillingError, platformErrorFromResponse } from '../../platform/errors.js';
import { classifySendError } from '../../platform/send-errors.js';

const BILLING = 'BILLING_CREDIT_LIMIT_BREACHED';
const refusal = (body: unknown, status = 403) => platformErrorFromResponse({ area: 'conversation', status, body });

test('a 403 naming BILLING_CREDIT_LIMIT_BREACHED in any field the envelope may use is a billing refusal', () => {
  const bodies = [
    { error: { code: 403, message: 'blocked', status: BILLING, details: [] } },
    { error: { code: BILLING, message: 'blocked', status: 'PERMISSION_DENIED' } },
    { error: { code: 403, message: 'blocked', status: 'PERMISSION_DENIED', details: [{ '@type': 'ErrorInfo', reason: BILLING }] } },
    { error: { code: 403, status: 'PERMISSION_DENIED', details: [{ code: BILLING }] } },
    { code: BILLING, message: 'blocked' },
  ];
  for (const body of bodies) {
    const err = refusal(body);
    assert.ok(err instanceof PlatformBillingError, JSON.stringify(body));
    assert.equal(err.code, BILLING, 'the code is the billing code whichever field carried it');
    assert.equal(err.retryable, false);
    assert.match(err.message, /^conversation 403 BILLING_CREDIT_LIMIT_BREACHED: /);
    assert.equal(classifySendError(err).kind, 'billing_refused');
  }
});

test('a permission refusal stays a permission refusal, and the code elsewhere than a 403 is not a billing refusal', () => {
  const denied = refusal({ error: { code: 403, message: 'key not tied to the project', status: 'PERMISSION_DENIED', details: [] } });
  assert.ok(denied instanceof PlatformAuthError);
  assert.ok(!(denied instanceof PlatformBillingError));
  assert.equal(classifySendError(denied).kind, 'campaign_refused');
  // Only an exact code in a named field counts: not the message, not another status.
  assert.ok(!(refusal({ error: { code: 403, message: `${BILLING} mentioned`, status: 'PERMISSION_DENIED' } }) instanceof PlatformBillingError));
  assert.ok(!(refusal({ error: { code: 401, status: BILLING } }, 401) instanceof PlatformBillingError));
  assert.ok(!(refusal('Forbidden') instanceof PlatformBillingError));
});
