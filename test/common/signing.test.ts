import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import {
  applicationSignature,
  applicationStringToSign,
  contentMd5,
  conversationWebhookSignature,
  hmacSha1Hex,
  signApplicationRequest,
  timingSafeEqualString,
  verifyApplicationRequest,
  verifyConversationWebhook,
  verifyHmacSha1Hex,
} from '../../common/signing.js';

// Fixed vector; the expected strings were produced with the openssl CLI:
//   printf '%s' "$BODY" | openssl dgst -md5 -binary | base64
//   printf '%s' "$STS"  | openssl dgst -sha256 -mac HMAC -macopt hexkey:<hex of base64-decoded secret> -binary | base64
const APP_KEY = '5f3d2c1b-0000-4000-8000-000000000001';
const APP_SECRET = 'JcYgkRk1TUGAbXDVFvzNUg==';
const BODY = '{"identity":{"type":"number","endpoint":"+46700000000"},"method":"sms"}';
const CONTENT_TYPE = 'application/json; charset=UTF-8';
const TIMESTAMP = '2014-06-02T15:39:31.272Z';
const PATH = '/verification/v1/verifications';
const EXPECTED_MD5 = 'pKXhl9sOsUjClws1oANArA==';
const EXPECTED_SIGNATURE = 'ArbV+e4TWKYUHoYUw2WAxA+8Uv+7eRIYWW9lnxQOLf4=';
const NOW = Date.parse(TIMESTAMP) + 1000;

test('fixed vector: Content-MD5, string to sign and signature match openssl and a step-by-step computation', () => {
  const md5 = createHash('md5').update(Buffer.from(BODY, 'utf8')).digest('base64');
  assert.equal(md5, EXPECTED_MD5);
  assert.equal(contentMd5(BODY), EXPECTED_MD5);
  assert.equal(contentMd5(Buffer.from(BODY)), EXPECTED_MD5);

  const stringToSign = `POST\n${EXPECTED_MD5}\n${CONTENT_TYPE}\nx-timestamp:${TIMESTAMP}\n${PATH}`;
  assert.equal(
    applicationStringToSign({ method: 'post', contentMd5: EXPECTED_MD5, contentType: CONTENT_TYPE, timestamp: TIMESTAMP, path: PATH }),
    stringToSign,
  );

  const key = Buffer.from(APP_SECRET, 'base64');
  assert.equal(key.length, 16);
  const stepByStep = createHmac('sha256', key).update(Buffer.from(stringToSign, 'utf8')).digest('base64');
  assert.equal(stepByStep, EXPECTED_SIGNATURE);
  assert.equal(applicationSignature(APP_SECRET, stringToSign), EXPECTED_SIGNATURE);

  const headers = signApplicationRequest({
    appKey: APP_KEY,
    appSecret: APP_SECRET,
    method: 'POST',
    path: `${PATH}?x=1`,
    contentType: CONTENT_TYPE,
    body: BODY,
    timestamp: TIMESTAMP,
  });
  assert.deepEqual(headers, {
    Authorization: `Application ${APP_KEY}:${EXPECTED_SIGNATURE}`,
    'x-timestamp': TIMESTAMP,
    'Content-MD5': EXPECTED_MD5,
    'Content-Type': CONTENT_TYPE,
  });
});

test('empty body: Content-MD5 is empty, no Content-Type is sent or signed', () => {
  assert.equal(contentMd5(''), '');
  assert.equal(contentMd5(Buffer.alloc(0)), '');
  const headers = signApplicationRequest({
    appKey: APP_KEY,
    appSecret: APP_SECRET,
    method: 'get',
    path: '/verification/v1/verifications/id/1',
    contentType: CONTENT_TYPE,
    body: '',
    timestamp: TIMESTAMP,
  });
  assert.equal(headers['Content-MD5'], '');
  assert.equal(headers['Content-Type'], undefined);
  const expected = applicationSignature(APP_SECRET, `GET\n\n\nx-timestamp:${TIMESTAMP}\n/verification/v1/verifications/id/1`);
  assert.equal(headers.Authorization, `Application ${APP_KEY}:${expected}`);
  const result = verifyApplicationRequest({
    headers: lower(headers),
    method: 'GET',
    path: '/verification/v1/verifications/id/1',
    rawBody: '',
    secretForKey: secrets,
    now: NOW,
  });
  assert.deepEqual(result, { ok: true, appKey: APP_KEY });
});

test('timestamp defaults to now in ISO-8601 UTC', () => {
  const before = Date.now();
  const headers = signApplicationRequest({ appKey: APP_KEY, appSecret: APP_SECRET, method: 'POST', path: PATH, contentType: CONTENT_TYPE, body: BODY });
  const ts = headers['x-timestamp']!;
  assert.match(ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(ts) >= before - 5 && Date.parse(ts) <= Date.now() + 5);
});

const secrets = (key: string): string | undefined => (key === APP_KEY ? APP_SECRET : undefined);
const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

function signedRequest() {
  return {
    headers: lower(
      signApplicationRequest({
        appKey: APP_KEY,
        appSecret: APP_SECRET,
        method: 'POST',
        path: PATH,
        contentType: CONTENT_TYPE,
        body: BODY,
        timestamp: TIMESTAMP,
      }),
    ) as Record<string, string | undefined>,
    method: 'POST',
    path: PATH,
    rawBody: Buffer.from(BODY) as Buffer | string,
    secretForKey: secrets,
    now: NOW,
  };
}

test('verifyApplicationRequest accepts the signed request (query ignored, scheme case-insensitive, any header case)', () => {
  assert.deepEqual(verifyApplicationRequest(signedRequest()), { ok: true, appKey: APP_KEY });
  assert.deepEqual(verifyApplicationRequest({ ...signedRequest(), path: `${PATH}?a=b` }), { ok: true, appKey: APP_KEY });
  const r = signedRequest();
  r.headers.authorization = r.headers.authorization!.replace('Application', 'APPLICATION');
  assert.deepEqual(verifyApplicationRequest(r), { ok: true, appKey: APP_KEY });
  const mixed = signedRequest();
  const { authorization, ...rest } = mixed.headers;
  assert.deepEqual(verifyApplicationRequest({ ...mixed, headers: { ...rest, Authorization: [authorization!] } }), { ok: true, appKey: APP_KEY });
});

test('verifyApplicationRequest: tampering with each signed field fails', () => {
  const cases: Array<[string, (r: ReturnType<typeof signedRequest>) => void, string]> = [
    [
      'method',
      (r) => {
        r.method = 'PUT';
      },
      'bad_signature',
    ],
    [
      'path',
      (r) => {
        r.path = '/verification/v1/verifications/id/1';
      },
      'bad_signature',
    ],
    [
      'content type',
      (r) => {
        r.headers['content-type'] = 'application/json';
      },
      'bad_signature',
    ],
    [
      'timestamp',
      (r) => {
        r.headers['x-timestamp'] = '2014-06-02T15:39:31.273Z';
      },
      'bad_signature',
    ],
    [
      'body (md5 header kept)',
      (r) => {
        r.rawBody = BODY.replace('sms', 'flashcall');
      },
      'content_md5_mismatch',
    ],
    [
      'body and md5 header',
      (r) => {
        r.rawBody = BODY.replace('sms', 'flashcall');
        r.headers['content-md5'] = contentMd5(r.rawBody);
      },
      'bad_signature',
    ],
    [
      'body without md5 header',
      (r) => {
        r.rawBody = BODY.replace('sms', 'flashcall');
        delete r.headers['content-md5'];
      },
      'bad_signature',
    ],
    [
      'signature',
      (r) => {
        r.headers.authorization = `Application ${APP_KEY}:${EXPECTED_SIGNATURE.replace('A', 'B')}`;
      },
      'bad_signature',
    ],
    [
      'truncated signature',
      (r) => {
        r.headers.authorization = `Application ${APP_KEY}:${EXPECTED_SIGNATURE.slice(0, 10)}`;
      },
      'bad_signature',
    ],
    [
      'key',
      (r) => {
        r.headers.authorization = `Application other-key:${EXPECTED_SIGNATURE}`;
      },
      'unknown_key',
    ],
    [
      'secret',
      (r) => {
        r.secretForKey = () => 'AAAAAAAAAAAAAAAAAAAAAA==';
      },
      'bad_signature',
    ],
  ];
  for (const [name, tamper, reason] of cases) {
    const r = signedRequest();
    tamper(r);
    assert.deepEqual(verifyApplicationRequest(r), { ok: false, reason }, name);
  }
});

test('verifyApplicationRequest: missing or malformed headers and stale timestamps', () => {
  const without = (name: string) => {
    const r = signedRequest();
    delete r.headers[name];
    return verifyApplicationRequest(r);
  };
  assert.deepEqual(without('authorization'), { ok: false, reason: 'missing_authorization' });
  assert.deepEqual(without('x-timestamp'), { ok: false, reason: 'missing_timestamp' });
  for (const bad of ['Application', `Application ${APP_KEY}`, `Application :${EXPECTED_SIGNATURE}`, `Bearer abc`, `Application ${APP_KEY}:`]) {
    const r = signedRequest();
    r.headers.authorization = bad;
    assert.deepEqual(verifyApplicationRequest(r), { ok: false, reason: 'malformed_authorization' }, bad);
  }
  const stale = { ...signedRequest(), now: Date.parse(TIMESTAMP) + 15 * 60_000 + 1 };
  assert.deepEqual(verifyApplicationRequest(stale), { ok: false, reason: 'stale_timestamp' });
  const future = { ...signedRequest(), now: Date.parse(TIMESTAMP) - 15 * 60_000 - 1 };
  assert.deepEqual(verifyApplicationRequest(future), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(verifyApplicationRequest({ ...signedRequest(), now: Date.parse(TIMESTAMP) + 15 * 60_000 }), { ok: true, appKey: APP_KEY });
  assert.deepEqual(verifyApplicationRequest({ ...signedRequest(), now: Date.parse(TIMESTAMP) + 61_000, maxSkewMs: 60_000 }), {
    ok: false,
    reason: 'stale_timestamp',
  });
  const garbage = signedRequest();
  garbage.headers['x-timestamp'] = 'yesterday';
  assert.deepEqual(verifyApplicationRequest(garbage), { ok: false, reason: 'stale_timestamp' });
});

test('verifyApplicationRequest accepts Basic key:secret and rejects a wrong one', () => {
  const basic = (user: string, pass: string) => ({
    headers: { authorization: `basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` },
    method: 'POST',
    path: PATH,
    rawBody: BODY,
    secretForKey: secrets,
  });
  assert.deepEqual(verifyApplicationRequest(basic(APP_KEY, APP_SECRET)), { ok: true, appKey: APP_KEY });
  assert.deepEqual(verifyApplicationRequest(basic(APP_KEY, 'nope')), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyApplicationRequest(basic('someone', APP_SECRET)), { ok: false, reason: 'unknown_key' });
  assert.deepEqual(
    verifyApplicationRequest({ ...basic(APP_KEY, APP_SECRET), headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` } }),
    { ok: false, reason: 'malformed_authorization' },
  );
});

// Conversation webhooks; the expected signature came from:
//   printf '%s' '{"event":"x"}.nonce-1.1700000000' | openssl dgst -sha256 -hmac 'whsec' -binary | base64
const WH_BODY = '{"event":"x"}';
const WH_SIGNATURE = 'zNR7r/Qd4GYYAqNRGKswomva8OFtoZ4t18coY8SONSM=';

function webhook(overrides: Record<string, string | undefined> = {}) {
  return {
    headers: {
      'x-platform-webhook-signature': WH_SIGNATURE,
      'x-platform-webhook-signature-nonce': 'nonce-1',
      'x-platform-webhook-signature-timestamp': '1700000000',
      'x-platform-webhook-signature-algorithm': 'HmacSHA256',
      ...overrides,
    },
    rawBody: WH_BODY as string | Buffer,
    secret: 'whsec',
    now: 1_700_000_010_000,
  };
}

test('conversation webhook signature matches openssl and a step-by-step HMAC', () => {
  const stepByStep = createHmac('sha256', Buffer.from('whsec', 'utf8')).update(`${WH_BODY}.nonce-1.1700000000`).digest('base64');
  assert.equal(stepByStep, WH_SIGNATURE);
  assert.equal(conversationWebhookSignature('whsec', WH_BODY, 'nonce-1', '1700000000'), WH_SIGNATURE);
  assert.equal(conversationWebhookSignature('whsec', Buffer.from(WH_BODY), 'nonce-1', '1700000000'), WH_SIGNATURE);
});

test('verifyConversationWebhook accepts a good request and rejects each tampering', () => {
  assert.deepEqual(verifyConversationWebhook(webhook()), { ok: true });
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), rawBody: '{"event":"y"}' }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature-nonce': 'nonce-2' })), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature-timestamp': '1700000001' })), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), secret: 'other' }), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature': undefined })), { ok: false, reason: 'missing_signature' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature-nonce': undefined })), { ok: false, reason: 'missing_nonce' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature-timestamp': undefined })), { ok: false, reason: 'missing_timestamp' });
  assert.deepEqual(verifyConversationWebhook(webhook({ 'x-platform-webhook-signature-algorithm': 'HmacSHA1' })), {
    ok: false,
    reason: 'unsupported_algorithm',
  });
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), now: 1_700_000_301_000 }), { ok: false, reason: 'stale_timestamp' });
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), now: 1_700_000_301_000, maxSkewSeconds: 600 }), { ok: true });
});

test('verifyConversationWebhook rejects a replayed nonce, and only records nonces of authentic requests', () => {
  const seen = new Set<string>();
  const seenNonce = (n: string) => {
    if (seen.has(n)) return true;
    seen.add(n);
    return false;
  };
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), secret: 'forged', seenNonce }), { ok: false, reason: 'bad_signature' });
  assert.equal(seen.size, 0);
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), seenNonce }), { ok: true });
  assert.deepEqual(verifyConversationWebhook({ ...webhook(), seenNonce }), { ok: false, reason: 'replayed_nonce' });
});

test('HMAC-SHA1 hex for sender ID callbacks matches openssl and verifies in any hex case', () => {
  // printf '%s' '{"state":"APPROVED"}' | openssl dgst -sha1 -hmac 'hmac-secret'
  const expected = '0aa85048022585f271d91f56ab1221206fbf56d9';
  assert.equal(hmacSha1Hex('hmac-secret', '{"state":"APPROVED"}'), expected);
  assert.equal(verifyHmacSha1Hex('hmac-secret', Buffer.from('{"state":"APPROVED"}'), expected), true);
  assert.equal(verifyHmacSha1Hex('hmac-secret', '{"state":"APPROVED"}', expected.toUpperCase()), true);
  assert.equal(verifyHmacSha1Hex('hmac-secret', '{"state":"REJECTED"}', expected), false);
  assert.equal(verifyHmacSha1Hex('other', '{"state":"APPROVED"}', expected), false);
  assert.equal(verifyHmacSha1Hex('hmac-secret', '{"state":"APPROVED"}', expected.slice(0, 20)), false);
});

test('timingSafeEqualString', () => {
  assert.equal(timingSafeEqualString('abc', 'abc'), true);
  assert.equal(timingSafeEqualString('abc', 'abd'), false);
  assert.equal(timingSafeEqualString('abc', 'abcd'), false);
  assert.equal(timingSafeEqualString('', ''), true);
  assert.equal(timingSafeEqualString('é', 'e'), false);
});
