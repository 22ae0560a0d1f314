import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { verifyApplicationRequest } from '../../common/signing.js';
import { PlatformHttp } from '../../platform/http.js';
import { OAuthBearerAuth, OAuthTokenRegistry, OAuthTokenSource, oauthTokenUrl } from '../../platform/auth/oauth.js';
import { ApplicationSignedAuth } from '../../platform/auth/application.js';
import { ApiKeyAuth } from '../../platform/auth/api-key.js';
import { BasicAuth } from '../../platform/auth/basic.js';
import { PlatformAuthError } from '../../platform/errors.js';
import { recordingStub, sendJson as json, type StubRequest } from '../helpers/stub-server.js';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const jwt = (payload: Record<string, unknown>) => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.sig`;

/** Token endpoint + one protected resource that accepts only the latest issued token. */
async function startOAuthStub(t: TestContext, opts: { expiresIn?: number; tokenDelayMs?: number; rejectAll?: boolean } = {}) {
  let issued = 0;
  let valid = '';
  const stub = await recordingStub(t, async (req, res) => {
    if (req.url === '/oauth2/token') {
      assert.equal(req.method, 'POST');
      assert.equal(req.headers.authorization, `Basic ${Buffer.from('key-id:key-secret').toString('base64')}`);
      assert.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(req.body.toString(), 'grant_type=client_credentials');
      if (opts.tokenDelayMs) await new Promise((r) => setTimeout(r, opts.tokenDelayMs));
      issued += 1;
      valid = `token-${issued}`;
      return json(res, 200, { access_token: valid, expires_in: opts.expiresIn ?? 3600, token_type: 'bearer' });
    }
    if (!opts.rejectAll && req.headers.authorization === `Bearer ${valid}`) return json(res, 200, { ok: true, token: valid });
    return json(res, 401, { error: { code: 401, message: 'token expired', status: 'UNAUTHENTICATED', details: [] } });
  });
  return {
    ...stub,
    issued: () => issued,
    expireCurrentToken: () => {
      valid = 'none';
    },
  };
}

function tokenSource(url: string, now?: () => number) {
  const http = new PlatformHttp({ timeoutMs: 2000 });
  const tokens = new OAuthTokenSource({ http, tokenUrl: oauthTokenUrl(`${url}/`), keyId: 'key-id', keySecret: 'key-secret', now });
  return { http, tokens, auth: new OAuthBearerAuth(tokens) };
}

const tokenRequests = (reqs: StubRequest[]) => reqs.filter((r) => r.url === '/oauth2/token').length;

test('token is fetched once, cached and reused', async (t) => {
  const stub = await startOAuthStub(t);
  const { http, auth } = tokenSource(stub.url);
  for (let i = 0; i < 3; i += 1) {
    const res = await http.request<{ token: string }>({ area: 'conversation', method: 'GET', url: `${stub.url}/thing`, auth });
    assert.equal(res.body.token, 'token-1');
  }
  assert.equal(stub.issued(), 1);
  assert.equal(stub.requests.length, 4);
});

test('token is refreshed 60 s before expiry (expires_in)', async (t) => {
  const stub = await startOAuthStub(t, { expiresIn: 3600 });
  let now = 1_000_000;
  const { tokens } = tokenSource(stub.url, () => now);
  assert.equal(await tokens.getToken(), 'token-1');
  now += 3600_000 - 60_000 - 1;
  assert.equal(await tokens.getToken(), 'token-1');
  now += 1;
  assert.equal(await tokens.getToken(), 'token-2');
  assert.equal(stub.issued(), 2);
});

test('short-lived token: refreshed at half its life rather than on every call', async (t) => {
  const stub = await startOAuthStub(t, { expiresIn: 4 });
  let now = 0;
  const { tokens } = tokenSource(stub.url, () => now);
  assert.equal(await tokens.getToken(), 'token-1');
  now = 1999;
  assert.equal(await tokens.getToken(), 'token-1');
  now = 2000;
  assert.equal(await tokens.getToken(), 'token-2');
});

test('JWT exp is honoured when it ends before expires_in', async (t) => {
  const now = 1_700_000_000_000;
  const stub = await recordingStub(t, (_req, res) => json(res, 200, { access_token: jwt({ exp: now / 1000 + 600 }), expires_in: 3600 }));
  let clock = now;
  const { tokens } = tokenSource(stub.url, () => clock);
  const first = await tokens.getToken();
  clock = now + 600_000 - 60_000 - 1;
  assert.equal(await tokens.getToken(), first);
  clock += 1;
  await tokens.getToken();
  assert.equal(stub.requests.length, 2);
});

test('JWT exp alone (no expires_in) sets the lifetime', async (t) => {
  const now = 1_700_000_000_000;
  const stub = await recordingStub(t, (_req, res) => json(res, 200, { access_token: jwt({ exp: now / 1000 + 300 }) }));
  let clock = now;
  const { tokens } = tokenSource(stub.url, () => clock);
  await tokens.getToken();
  clock = now + 240_000 - 1;
  await tokens.getToken();
  assert.equal(stub.requests.length, 1);
  clock = now + 240_000;
  await tokens.getToken();
  assert.equal(stub.requests.length, 2);
});

test('5 concurrent callers share one token request', async (t) => {
  const stub = await startOAuthStub(t, { tokenDelayMs: 50 });
  const { http, auth } = tokenSource(stub.url);
  const results = await Promise.all(
    Array.from({ length: 5 }, () => http.request<{ token: string }>({ area: 'conversation', method: 'GET', url: `${stub.url}/thing`, auth })),
  );
  assert.deepEqual(
    results.map((r) => r.body.token),
    Array(5).fill('token-1'),
  );
  assert.equal(tokenRequests(stub.requests), 1);
});

test('a failed refresh is not cached: the next caller tries again', async (t) => {
  let calls = 0;
  const stub = await recordingStub(t, (_req, res) => {
    calls += 1;
    if (calls === 1) return json(res, 503, { error: 'temporarily_unavailable' });
    return json(res, 200, { access_token: 'ok-token', expires_in: 3600 });
  });
  const { tokens } = tokenSource(stub.url);
  await assert.rejects(tokens.getToken(), { name: 'PlatformUnavailableError', area: 'auth', code: 'temporarily_unavailable' });
  assert.equal(await tokens.getToken(), 'ok-token');
});

test('wrong key: the token endpoint 401 becomes PlatformAuthError without a retry', async (t) => {
  const stub = await recordingStub(t, (_req, res) => json(res, 401, { error: 'invalid_client', error_description: 'bad client' }));
  const { tokens } = tokenSource(stub.url);
  await assert.rejects(tokens.getToken(), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.code, 'invalid_client');
    assert.equal(err.retryable, false);
    return true;
  });
  assert.equal(stub.requests.length, 1);
});

test('expired-token 401: cache invalidated, new token fetched, request retried exactly once', async (t) => {
  const stub = await startOAuthStub(t);
  const { http, auth } = tokenSource(stub.url);
  await http.request({ area: 'conversation', method: 'GET', url: `${stub.url}/thing`, auth });
  stub.expireCurrentToken();
  const res = await http.request<{ token: string }>({ area: 'conversation', method: 'POST', url: `${stub.url}/thing`, json: { a: 1 }, auth });
  assert.equal(res.body.token, 'token-2');
  const paths = stub.requests.map((r) => `${r.method} ${r.url} ${r.headers.authorization}`);
  assert.deepEqual(paths, [
    'POST /oauth2/token Basic a2V5LWlkOmtleS1zZWNyZXQ=',
    'GET /thing Bearer token-1',
    'POST /thing Bearer token-1',
    'POST /oauth2/token Basic a2V5LWlkOmtleS1zZWNyZXQ=',
    'POST /thing Bearer token-2',
  ]);
  // The retried request carried the same body.
  assert.equal(stub.requests[4]!.body.toString(), '{"a":1}');
});

test('a second 401 is a PlatformAuthError (no further retries)', async (t) => {
  const stub = await startOAuthStub(t, { rejectAll: true });
  const { http, auth } = tokenSource(stub.url);
  await assert.rejects(http.request({ area: 'conversation', method: 'GET', url: `${stub.url}/thing`, auth }), (err: unknown) => {
    assert.ok(err instanceof PlatformAuthError);
    assert.equal(err.httpStatus, 401);
    assert.equal(err.code, 'UNAUTHENTICATED');
    assert.equal(err.retryable, false);
    return true;
  });
  assert.equal(stub.requests.filter((r) => r.url === '/thing').length, 2);
  assert.equal(tokenRequests(stub.requests), 2);
});

test('a stale 401 does not discard a newer token another caller fetched', async (t) => {
  const stub = await startOAuthStub(t);
  const { tokens } = tokenSource(stub.url);
  assert.equal(await tokens.getToken(), 'token-1');
  tokens.invalidate('token-1');
  assert.equal(await tokens.getToken(), 'token-2');
  tokens.invalidate('token-1'); // late 401 for the old token
  assert.equal(await tokens.getToken(), 'token-2');
  assert.equal(stub.issued(), 2);
});

test('registry hands every client of one key the same token source', () => {
  const registry = new OAuthTokenRegistry();
  const http = new PlatformHttp({ timeoutMs: 1000 });
  const opts = { http, tokenUrl: 'http://auth.test/oauth2/token', keyId: 'k', keySecret: 's' };
  assert.equal(registry.get(opts), registry.get({ ...opts, http: new PlatformHttp({ timeoutMs: 5 }) }));
  assert.notEqual(registry.get(opts), registry.get({ ...opts, keyId: 'k2' }));
  assert.notEqual(registry.get(opts), registry.get({ ...opts, keySecret: 'rotated' }));
});

test('application signature is verifiable over the bytes the server received', async (t) => {
  const appKey = 'app-key-1';
  const appSecret = Buffer.from('0123456789abcdef').toString('base64');
  const results: unknown[] = [];
  const stub = await recordingStub(t, (req, res) => {
    results.push(
      verifyApplicationRequest({
        headers: req.headers,
        method: req.method!,
        path: req.url!,
        rawBody: req.body,
        secretForKey: (k) => (k === appKey ? appSecret : undefined),
      }),
    );
    json(res, 200, { id: 'v1' });
  });
  const http = new PlatformHttp({ timeoutMs: 2000 });
  const auth = new ApplicationSignedAuth(appKey, appSecret);
  await http.request({
    area: 'verification',
    method: 'POST',
    url: `${stub.url}/verification/v1/verifications`,
    query: { lang: 'sv' },
    json: { identity: { type: 'number', endpoint: '+46700000000' }, method: 'sms', note: 'åäö ✓' },
    auth,
  });
  await http.request({ area: 'verification', method: 'GET', url: `${stub.url}/verification/v1/verifications/id/v1`, auth });
  assert.deepEqual(results, [
    { ok: true, appKey },
    { ok: true, appKey },
  ]);

  const [post, get] = stub.requests;
  assert.match(post!.headers.authorization!, /^Application app-key-1:[A-Za-z0-9+/]+=*$/);
  assert.equal(post!.headers['content-type'], 'application/json; charset=utf-8');
  assert.ok(post!.headers['content-md5']!.length > 0);
  assert.equal(post!.url, '/verification/v1/verifications?lang=sv');
  assert.equal(get!.headers['content-md5'], '');
  assert.equal(get!.headers['content-type'], undefined);

  // The same check fails against a different secret, so the assertions above are not vacuous.
  const wrong = verifyApplicationRequest({
    headers: post!.headers,
    method: 'POST',
    path: post!.url!,
    rawBody: post!.body,
    secretForKey: () => Buffer.from('other').toString('base64'),
  });
  assert.deepEqual(wrong, { ok: false, reason: 'bad_signature' });
});

test('x-api-key is sent as a header and never in the query string or body', async (t) => {
  const stub = await recordingStub(t, (_req, res) => json(res, 200, { status: 'Success', 'tracking-id': 't1' }));
  const http = new PlatformHttp({ timeoutMs: 2000 });
  await http.request({
    area: 'mms',
    method: 'POST',
    url: `${stub.url}/ep/v2/`,
    query: { v: '1' },
    json: { action: 'sendmms' },
    auth: new ApiKeyAuth('secret-api-key'),
  });
  const req = stub.requests[0]!;
  assert.equal(req.headers['x-api-key'], 'secret-api-key');
  assert.ok(!req.url!.includes('secret-api-key'));
  assert.ok(!req.body.toString().includes('secret-api-key'));
  assert.equal(req.body.toString(), '{"action":"sendmms"}');
});

test('basic auth header, and caller headers cannot duplicate the auth header', async (t) => {
  const stub = await recordingStub(t, (_req, res) => json(res, 200, {}));
  const http = new PlatformHttp({ timeoutMs: 2000 });
  await http.request({
    area: 'subprojects',
    method: 'GET',
    url: `${stub.url}/x`,
    headers: { Authorization: 'Bearer stale' },
    auth: new BasicAuth('id', 'secret'),
  });
  assert.equal(stub.requests[0]!.headers.authorization, `Basic ${Buffer.from('id:secret').toString('base64')}`);
});
