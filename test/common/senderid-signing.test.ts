import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SENDER_ID_SIGNATURE_HEADER, signSenderIdCallback, verifySenderIdCallback } from '../../common/signing.js';

// Fixed vectors from the openssl CLI:
//   printf '%s' "$BODY" | openssl dgst -sha1 -hmac 'secret-new'   (and 'secret-old')
const BODY = '{"eventId":"e1","registrationState":"APPROVED"}';
const NEW_SIG = '2d6fad3863c57d3eb68e2cedb332f17bc8a78f39';
const OLD_SIG = '4b04db8e50aa3fc985268110c58c572ec5a0250d';

test('sender ID callback signature: lower-case hex HMAC-SHA1 of the raw bytes, in X-Service-Signature', () => {
  assert.equal(SENDER_ID_SIGNATURE_HEADER, 'x-service-signature');
  assert.deepEqual(signSenderIdCallback('secret-new', BODY), { 'x-service-signature': NEW_SIG });
  assert.deepEqual(signSenderIdCallback('secret-old', Buffer.from(BODY)), { 'x-service-signature': OLD_SIG });
});

test('verify: the current secret matches with index 0, any header case and hex case', () => {
  assert.deepEqual(verifySenderIdCallback({ headers: { 'X-Service-Signature': NEW_SIG }, rawBody: BODY, secrets: ['secret-new'] }), {
    ok: true,
    secretIndex: 0,
  });
  assert.deepEqual(
    verifySenderIdCallback({ headers: { 'x-service-signature': ` ${NEW_SIG.toUpperCase()} ` }, rawBody: Buffer.from(BODY), secrets: ['secret-new'] }),
    { ok: true, secretIndex: 0 },
  );
  assert.deepEqual(verifySenderIdCallback({ headers: { 'x-service-signature': [NEW_SIG] }, rawBody: BODY, secrets: ['secret-new'] }), {
    ok: true,
    secretIndex: 0,
  });
});

test('verify: a callback signed with the previous secret is accepted during a rotation, and refused once it is dropped', () => {
  const headers = signSenderIdCallback('secret-old', BODY);
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: ['secret-new', 'secret-old'] }), { ok: true, secretIndex: 1 });
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: ['secret-new'] }), { ok: false, reason: 'bad_signature' });
  // Both orders of the list work; the index says which one matched.
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: ['secret-old', 'secret-new'] }), { ok: true, secretIndex: 0 });
});

test('verify: refusals name their reason', () => {
  const headers = signSenderIdCallback('secret-new', BODY);
  assert.deepEqual(verifySenderIdCallback({ headers: {}, rawBody: BODY, secrets: ['secret-new'] }), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(verifySenderIdCallback({ headers: { 'x-service-signature': '' }, rawBody: BODY, secrets: ['secret-new'] }), {
    ok: false,
    reason: 'missing_signature',
  });
  assert.deepEqual(verifySenderIdCallback({ headers: { 'x-service-signature': NEW_SIG.slice(0, 39) }, rawBody: BODY, secrets: ['secret-new'] }), {
    ok: false,
    reason: 'malformed_signature',
  });
  assert.deepEqual(verifySenderIdCallback({ headers: { 'x-service-signature': `sha1=${NEW_SIG}` }, rawBody: BODY, secrets: ['secret-new'] }), {
    ok: false,
    reason: 'malformed_signature',
  });
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: `${BODY} `, secrets: ['secret-new'] }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: [] }), { ok: false, reason: 'no_secret' });
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: [''] }), { ok: false, reason: 'no_secret' });
  // An empty secret in the list is skipped, not used as a key.
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: BODY, secrets: ['', 'secret-new'] }), { ok: true, secretIndex: 0 });
});

test('verify: the raw bytes are hashed, so a re-serialised body does not pass', () => {
  const headers = signSenderIdCallback('secret-new', BODY);
  const reserialised = JSON.stringify(JSON.parse(BODY), null, 1);
  assert.deepEqual(verifySenderIdCallback({ headers, rawBody: reserialised, secrets: ['secret-new'] }), { ok: false, reason: 'bad_signature' });
});
