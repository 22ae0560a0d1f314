// The sandbox's application-signed and x-api-key verifiers, exercised through test-only routes.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signApplicationRequest } from '../../../common/signing.js';
import { createSandbox, defaultSandboxAccount, type Sandbox } from '../../../sandbox/index.js';
import { applicationAuth } from '../../../sandbox/core/auth-application.js';
import { apiKeyAuth } from '../../../sandbox/core/auth-api-key.js';
import { rejectUnparsedBody } from '../../../sandbox/core/body-parsers.js';
import { authOf } from '../../../sandbox/core/request-state.js';

const account = defaultSandboxAccount();
const VOICE_PATH = '/voice/calling/v1/_test';
const VERIFICATION_PATH = '/verification/verification/v1/_test';
const MMS_PATH = '/mms/ep/v2/_test';
const BODY = JSON.stringify({ method: 'ttsCallout', ttsCallout: { prompts: 'hello' } });
const CONTENT_TYPE = 'application/json; charset=UTF-8';

function signed(path: string, over: Partial<Parameters<typeof signApplicationRequest>[0]> = {}) {
  return signApplicationRequest({
    appKey: account.appKey,
    appSecret: account.appSecret,
    method: 'POST',
    path,
    contentType: CONTENT_TYPE,
    body: BODY,
    ...over,
  });
}

async function post(sb: Sandbox, url: string, headers: Record<string, string>, payload = BODY) {
  const res = await sb.app.inject({ method: 'POST', url, headers, payload });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

describe('application signed request verifier', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
    const ok = async (request: Parameters<typeof authOf>[0]) => ({ ok: true, appKey: authOf(request).account.appKey });
    sb.app.post(VOICE_PATH, { preValidation: [applicationAuth(sb.context), rejectUnparsedBody] }, ok);
    sb.app.post(VERIFICATION_PATH, { preValidation: [applicationAuth(sb.context), rejectUnparsedBody] }, ok);
    sb.app.post('/voice/calling/v1/_strict', { preValidation: [applicationAuth(sb.context, { maxSkewMs: 1000, allowBasic: false })] }, ok);
  });
  after(() => sb.close());

  test('a correctly signed request is accepted (full sandbox path)', async () => {
    const r = await post(sb, VOICE_PATH, signed(VOICE_PATH));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { ok: true, appKey: account.appKey });
  });

  test('a request signed over the platform path (without the sandbox prefix) is accepted', async () => {
    const r = await post(sb, VOICE_PATH, signed('/calling/v1/_test'));
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('wrong signature: 401 with 40102', async () => {
    const headers = signed(VOICE_PATH, { appSecret: Buffer.alloc(32, 1).toString('base64') });
    const r = await post(sb, VOICE_PATH, headers);
    assert.equal(r.status, 401);
    assert.equal(r.body.errorCode, 40102);
    assert.equal(typeof r.body.message, 'string');
  });

  test('body changed after signing: 401 with 40102', async () => {
    const headers = signed(VOICE_PATH);
    delete (headers as Record<string, string>)['Content-MD5'];
    const r = await post(sb, VOICE_PATH, headers, BODY.replace('hello', 'hellO'));
    assert.equal(r.status, 401);
    assert.equal(r.body.errorCode, 40102);
  });

  test('Content-MD5 not matching the raw body: 401 with 40102', async () => {
    const headers = { ...signed(VOICE_PATH), 'Content-MD5': '1B2M2Y8AsgTpgAmY7PhCfg==' };
    const r = await post(sb, VOICE_PATH, headers);
    assert.equal(r.status, 401);
    assert.equal(r.body.errorCode, 40102);
  });

  test('stale or future x-timestamp (beyond 15 minutes), or none: 401 with 40101', async () => {
    for (const offsetMs of [-16 * 60_000, 16 * 60_000]) {
      const r = await post(sb, VOICE_PATH, signed(VOICE_PATH, { timestamp: new Date(Date.now() + offsetMs).toISOString() }));
      assert.equal(r.status, 401);
      assert.equal(r.body.errorCode, 40101, String(offsetMs));
    }
    const headers = signed(VOICE_PATH) as Record<string, string>;
    delete headers['x-timestamp'];
    const missing = await post(sb, VOICE_PATH, headers);
    assert.equal(missing.body.errorCode, 40101);
    // 14 minutes old is still fine.
    const fresh = await post(sb, VOICE_PATH, signed(VOICE_PATH, { timestamp: new Date(Date.now() - 14 * 60_000).toISOString() }));
    assert.equal(fresh.status, 200);
  });

  test('the allowed skew is configurable', async () => {
    const path = '/voice/calling/v1/_strict';
    const r = await post(sb, path, signed(path, { timestamp: new Date(Date.now() - 5000).toISOString() }));
    assert.equal(r.status, 401);
    assert.equal(r.body.errorCode, 40101);
    assert.equal((await post(sb, path, signed(path))).status, 200);
  });

  test('unknown application key, missing or malformed Authorization: 401 with 40100', async () => {
    const unknown = await post(sb, VOICE_PATH, signed(VOICE_PATH, { appKey: 'no-such-app' }));
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.errorCode, 40100);
    const { Authorization: _drop, ...noAuth } = signed(VOICE_PATH) as Record<string, string>;
    const missing = await post(sb, VOICE_PATH, noAuth);
    assert.equal(missing.body.errorCode, 40100);
    const malformed = await post(sb, VOICE_PATH, { ...noAuth, Authorization: 'Application nocolon' });
    assert.equal(malformed.body.errorCode, 40100);
  });

  test('Basic appKey:appSecret is accepted, unless the route forbids it; a wrong secret is not', async () => {
    const good = `Basic ${Buffer.from(`${account.appKey}:${account.appSecret}`).toString('base64')}`;
    const headers = { Authorization: good, 'content-type': 'application/json' };
    assert.equal((await post(sb, VOICE_PATH, headers)).status, 200);
    const bad = `Basic ${Buffer.from(`${account.appKey}:wrong`).toString('base64')}`;
    assert.equal((await post(sb, VOICE_PATH, { ...headers, Authorization: bad })).status, 401);
    const strict = await post(sb, '/voice/calling/v1/_strict', headers);
    assert.equal(strict.status, 401);
    assert.equal(strict.body.errorCode, 40100);
  });

  test('verification errors carry errorCode, message and reference', async () => {
    const r = await post(sb, VERIFICATION_PATH, signed(VERIFICATION_PATH, { appSecret: Buffer.alloc(32, 2).toString('base64') }));
    assert.equal(r.status, 401);
    assert.equal(r.body.errorCode, 40102);
    assert.equal(typeof r.body.message, 'string');
    assert.equal(typeof r.body.reference, 'string');
    assert.ok((r.body.reference as string).length > 0);
  });

  test('a signed request with invalid JSON gets the area 400 after authentication', async () => {
    const raw = '{"method": ';
    const r = await post(sb, VOICE_PATH, signed(VOICE_PATH, { body: raw }), raw);
    assert.equal(r.status, 400);
    assert.equal(r.body.errorCode, 40001);
    assert.match(String(r.body.message), /Invalid JSON payload/);
  });
});

describe('x-api-key verifier (MMS)', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox();
    sb.app.post(MMS_PATH, { preValidation: [apiKeyAuth(sb.context), rejectUnparsedBody] }, async () => ({ status: 'Success' }));
  });
  after(() => sb.close());

  const json = { 'content-type': 'application/json; charset=utf-8' };

  test('the account key is accepted', async () => {
    const r = await post(sb, MMS_PATH, { ...json, 'x-api-key': account.mmsApiKey }, '{"action":"sendmms"}');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'Success' });
  });

  test('an unknown or missing key: Failure E104', async () => {
    for (const headers of [{ ...json, 'x-api-key': 'wrong' }, json]) {
      const r = await post(sb, MMS_PATH, headers, '{}');
      assert.equal(r.status, 401);
      assert.equal(r.body.status, 'Failure');
      assert.equal(r.body['error-code'], 'E104');
      assert.equal(typeof r.body['error-info'], 'string');
    }
  });

  test('invalid JSON: Failure E108; an injected 429 uses E113', async () => {
    const bad = await post(sb, MMS_PATH, { ...json, 'x-api-key': account.mmsApiKey }, '{nope');
    assert.equal(bad.status, 400);
    assert.equal(bad.body['error-code'], 'E108');
    await sb.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { area: 'mms', status: 429, count: 1, retryAfterSeconds: 2 } });
    const limited = await sb.app.inject({ method: 'POST', url: MMS_PATH, headers: { ...json, 'x-api-key': account.mmsApiKey }, payload: '{}' });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '2');
    assert.equal((limited.json() as Record<string, unknown>)['error-code'], 'E113');
  });
});
