// Core of the platform sandbox: token endpoint, OAuth verifier, faults, latency, rate limits, inspection.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { createSandbox, defaultSandboxAccount, type Sandbox, type SandboxAccount, type SandboxOptions } from '../../../sandbox/index.js';
import { RateLimiter } from '../../../sandbox/core/rate-limit.js';

const account = defaultSandboxAccount();
const other: SandboxAccount = {
  projectId: 'other-project',
  keyId: 'other-key',
  keySecret: 'other-secret',
  appKey: 'other-app',
  appSecret: Buffer.alloc(32, 7).toString('base64'),
  mmsApiKey: 'other-mms',
};

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
const listPath = (project: string) => `/subprojects/v1alpha1/projects/${project}/subprojects`;

async function sandboxWith(opts: SandboxOptions = {}): Promise<Sandbox> {
  return createSandbox({ accounts: [account, other], ...opts });
}

async function token(sb: Sandbox, a: SandboxAccount = account): Promise<string> {
  const res = await sb.app.inject({
    method: 'POST',
    url: '/auth/oauth2/token',
    headers: { authorization: basic(a.keyId, a.keySecret), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials',
  });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { access_token: string }).access_token;
}

describe('token endpoint', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await sandboxWith();
  });
  after(() => sb.close());

  test('issues a bearer JWT carrying key, project and expiry', async () => {
    const res = await sb.app.inject({
      method: 'POST',
      url: '/auth/oauth2/token',
      headers: { authorization: basic(account.keyId, account.keySecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(res.statusCode, 200);
    const body = res.json() as { access_token: string; expires_in: number; token_type: string };
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.expires_in, 3600);
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.sub, account.keyId);
    assert.equal(claims.project, account.projectId);
    const now = Math.floor(Date.now() / 1000);
    assert.ok(claims.exp! >= now + 3600 && claims.exp! <= now + 3602);
  });

  test('401 UNAUTHENTICATED without or with wrong credentials', async () => {
    for (const authorization of [undefined, basic(account.keyId, 'wrong'), basic('nobody', 'x'), 'Bearer abc']) {
      const res = await sb.app.inject({
        method: 'POST',
        url: '/auth/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
        payload: 'grant_type=client_credentials',
      });
      assert.equal(res.statusCode, 401, String(authorization));
      const body = res.json() as { error: { code: number; status: string; details: unknown[] } };
      assert.equal(body.error.code, 401);
      assert.equal(body.error.status, 'UNAUTHENTICATED');
      assert.deepEqual(body.error.details, []);
    }
  });

  test('400 INVALID_ARGUMENT for another grant_type', async () => {
    const res = await sb.app.inject({
      method: 'POST',
      url: '/auth/oauth2/token',
      headers: { authorization: basic(account.keyId, account.keySecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=password',
    });
    assert.equal(res.statusCode, 400);
    const body = res.json() as { error: { status: string; message: string } };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    assert.match(body.error.message, /grant_type/);
  });
});

describe('OAuth verifier on an area', () => {
  let sb: Sandbox;
  before(async () => {
    sb = await sandboxWith();
  });
  after(() => sb.close());

  test('bearer token and basic credentials are both accepted', async () => {
    const t = await token(sb);
    const viaBearer = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: { authorization: `Bearer ${t}` } });
    assert.equal(viaBearer.statusCode, 200, viaBearer.body);
    const viaBasic = await sb.app.inject({
      method: 'GET',
      url: listPath(account.projectId),
      headers: { authorization: basic(account.keyId, account.keySecret) },
    });
    assert.equal(viaBasic.statusCode, 200, viaBasic.body);
  });

  test('401 for a missing header, wrong basic secret, tampered token or a token of another sandbox', async () => {
    const t = await token(sb);
    const foreign = await createSandbox({ accounts: [account, other] });
    const foreignToken = await token(foreign);
    await foreign.close();
    const tampered = `${t.slice(0, -4)}${t.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    for (const authorization of [undefined, basic(account.keyId, 'nope'), `Bearer ${tampered}`, `Bearer ${foreignToken}`, 'Digest x']) {
      const res = await sb.app.inject({
        method: 'GET',
        url: listPath(account.projectId),
        headers: authorization ? { authorization } : {},
      });
      assert.equal(res.statusCode, 401, String(authorization));
      assert.equal((res.json() as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
    }
  });

  test('403 PERMISSION_DENIED when the key belongs to another project', async () => {
    const t = await token(sb, other);
    for (const authorization of [`Bearer ${t}`, basic(other.keyId, other.keySecret)]) {
      const res = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: { authorization } });
      assert.equal(res.statusCode, 403);
      const body = res.json() as { error: { code: number; status: string; message: string } };
      assert.equal(body.error.code, 403);
      assert.equal(body.error.status, 'PERMISSION_DENIED');
      assert.match(body.error.message, /key not associated with the project/);
    }
  });

  test('an expired token is refused with a message saying so', async () => {
    const short = await sandboxWith({ tokenLifetimeSeconds: 1 });
    try {
      const t = await token(short);
      const first = await short.app.inject({ method: 'GET', url: listPath(account.projectId), headers: { authorization: `Bearer ${t}` } });
      assert.equal(first.statusCode, 200);
      const exp = decodeJwt(t).exp!;
      assert.ok(exp * 1000 - Date.now() <= 2000, 'lives about tokenLifetimeSeconds');
      await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 50));
      const late = await short.app.inject({ method: 'GET', url: listPath(account.projectId), headers: { authorization: `Bearer ${t}` } });
      assert.equal(late.statusCode, 401);
      const body = late.json() as { error: { status: string; message: string } };
      assert.equal(body.error.status, 'UNAUTHENTICATED');
      assert.match(body.error.message, /expired/);
    } finally {
      await short.close();
    }
  });
});

describe('fault injection and latency', () => {
  let sb: Sandbox;
  const auth = { authorization: basic(account.keyId, account.keySecret) };
  before(async () => {
    sb = await sandboxWith();
  });
  after(() => sb.close());

  test('the next `count` matching requests get the fault, before auth and without side effects; then normal', async () => {
    const add = await sb.app.inject({
      method: 'POST',
      url: '/_sandbox/faults',
      payload: { area: 'subprojects', method: 'POST', status: 503, count: 2, retryAfterSeconds: 7 },
    });
    assert.equal(add.statusCode, 200, add.body);

    // A GET does not match the rule.
    const get = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.equal(get.statusCode, 200);

    const create = { method: 'POST' as const, url: listPath(account.projectId), payload: { displayName: 'x' } };
    // No credentials at all: the fault still answers first.
    const f1 = await sb.app.inject(create);
    assert.equal(f1.statusCode, 503);
    assert.equal(f1.headers['retry-after'], '7');
    assert.deepEqual((f1.json() as { error: { status: string; code: number } }).error.status, 'UNAVAILABLE');
    const f2 = await sb.app.inject({ ...create, headers: auth });
    assert.equal(f2.statusCode, 503);

    const list = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.equal((list.json() as { subprojects: unknown[] }).subprojects.length, 0, 'faulted requests created nothing');

    const ok = await sb.app.inject({ ...create, headers: auth });
    assert.equal(ok.statusCode, 200, ok.body);

    const recorded = await sb.app.inject({ method: 'GET', url: '/_sandbox/requests?area=subprojects&method=POST' });
    const reqs = (recorded.json() as { requests: { status: number; faulted: boolean; body: unknown }[] }).requests;
    assert.deepEqual(
      reqs.map((r) => [r.status, r.faulted]),
      [
        [503, true],
        [503, true],
        [200, false],
      ],
    );
    assert.deepEqual(reqs[0]!.body, { displayName: 'x' });
  });

  test('a fault with its own body and pathContains; DELETE clears rules', async () => {
    await sb.app.inject({
      method: 'POST',
      url: '/_sandbox/faults',
      payload: { pathContains: '/subprojects/', status: 500, count: 5, body: { custom: true } },
    });
    const f = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.equal(f.statusCode, 500);
    assert.deepEqual(f.json(), { custom: true });
    const del = await sb.app.inject({ method: 'DELETE', url: '/_sandbox/faults' });
    assert.equal(del.statusCode, 200);
    const ok = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.equal(ok.statusCode, 200);
  });

  test('a fault for an unknown area is refused', async () => {
    const res = await sb.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { area: 'nowhere', status: 500, count: 1 } });
    assert.equal(res.statusCode, 400);
    const bad = await sb.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { status: 500 } });
    assert.equal(bad.statusCode, 400);
    assert.match((bad.json() as { error: { message: string } }).error.message, /count/);
  });

  test('latency delays matching requests until cleared with ms 0', async () => {
    await sb.app.inject({ method: 'POST', url: '/_sandbox/latency', payload: { area: 'subprojects', ms: 400 } });
    let started = Date.now();
    await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.ok(Date.now() - started >= 390, 'delayed');
    await sb.app.inject({ method: 'POST', url: '/_sandbox/latency', payload: { area: 'subprojects', ms: 0 } });
    started = Date.now();
    await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.ok(Date.now() - started < 300, 'no longer delayed');
  });

  test('latency after the work: the request is handled at once and only its answer waits', async () => {
    const displayName = `held answer ${Date.now()}`;
    await sb.app.inject({ method: 'POST', url: '/_sandbox/latency', payload: { area: 'subprojects', ms: 600, phase: 'after' } });
    const started = Date.now();
    const create = sb.app.inject({ method: 'POST', url: listPath(account.projectId), headers: auth, payload: { displayName } });
    await new Promise((r) => setTimeout(r, 200));
    // Another look, while the creator still waits for its answer: the subproject exists already.
    await sb.app.inject({ method: 'POST', url: '/_sandbox/latency', payload: { area: 'subprojects', ms: 0, phase: 'after' } });
    const list = await sb.app.inject({ method: 'GET', url: `${listPath(account.projectId)}?pageSize=100`, headers: auth });
    assert.ok(
      (list.json() as { subprojects: { displayName: string }[] }).subprojects.some((s) => s.displayName === displayName),
      'created before the answer',
    );
    assert.equal((await create).statusCode, 200);
    assert.ok(Date.now() - started >= 590, 'the answer was held');
    const bad = await sb.app.inject({ method: 'POST', url: '/_sandbox/latency', payload: { ms: 10, phase: 'during' } });
    assert.equal(bad.statusCode, 400);
  });

  test('reset clears faults, the request log and area state', async () => {
    await sb.app.inject({ method: 'POST', url: listPath(account.projectId), headers: auth, payload: { displayName: 'before reset' } });
    await sb.app.inject({ method: 'POST', url: '/_sandbox/faults', payload: { area: 'auth', status: 500, count: 3 } });
    const reset = await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' });
    assert.equal(reset.statusCode, 200);
    const log = await sb.app.inject({ method: 'GET', url: '/_sandbox/requests' });
    assert.deepEqual((log.json() as { requests: unknown[] }).requests, []);
    await token(sb); // would be 500 if the auth fault survived
    const list = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
    assert.deepEqual((list.json() as { subprojects: unknown[] }).subprojects, []);
  });
});

describe('rate limits', () => {
  test('over the per-project limit: 429 RESOURCE_EXHAUSTED with Retry-After', async () => {
    const sb = await sandboxWith({ rateLimits: { perProjectPerSecond: 3 } });
    try {
      const auth = { authorization: basic(account.keyId, account.keySecret) };
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await sb.app.inject({ method: 'GET', url: listPath(account.projectId), headers: auth });
        statuses.push(last.statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.equal(last!.headers['retry-after'], '1');
      assert.equal((last!.json() as { error: { status: string; code: number } }).error.status, 'RESOURCE_EXHAUSTED');
      // Another project has its own window.
      const otherRes = await sb.app.inject({
        method: 'GET',
        url: listPath(other.projectId),
        headers: { authorization: basic(other.keyId, other.keySecret) },
      });
      assert.equal(otherRes.statusCode, 200);
    } finally {
      await sb.close();
    }
  });

  test('checkRateLimit uses a sliding one-second window', () => {
    let now = 10_000;
    const limiter = new RateLimiter(() => now);
    assert.equal(limiter.checkRateLimit('k', 2).allowed, true);
    now += 600;
    assert.equal(limiter.checkRateLimit('k', 2).allowed, true);
    now += 300;
    const refused = limiter.checkRateLimit('k', 2);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 1);
    now += 101; // the first request left the window
    assert.equal(limiter.checkRateLimit('k', 2).allowed, true);
    assert.equal(limiter.checkRateLimit('other', 1).allowed, true);
  });
});

describe('request inspection and urls', () => {
  test('records area requests with credentials redacted, filters them, and serves platformUrls', async () => {
    const sb = await sandboxWith();
    try {
      const url = await sb.listen();
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sb.url, url);
      const urls = sb.platformUrls();
      assert.equal(urls.auth, `${url}/auth`);
      assert.equal(urls.voiceConfig, `${url}/voice-config`);
      assert.equal(urls.conversation.eu, `${url}/conversation/eu`);

      const tokenRes = await fetch(`${urls.auth}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: basic(account.keyId, account.keySecret), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      const { access_token } = (await tokenRes.json()) as { access_token: string };
      const created = await fetch(`${urls.subprojects}/v1alpha1/projects/${account.projectId}/subprojects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ displayName: 'inspect me' }),
      });
      assert.equal(created.status, 200);
      await fetch(`${urls.subprojects}/v1alpha1/projects/${account.projectId}/subprojects?pageSize=5`, {
        headers: { authorization: `Bearer ${access_token}`, accept: 'application/json' },
      });

      const all = (await (await fetch(`${url}/_sandbox/requests`)).json()) as { requests: Record<string, unknown>[] };
      assert.deepEqual(
        all.requests.map((r) => r.area),
        ['auth', 'subprojects', 'subprojects'],
      );
      const posts = (await (await fetch(`${url}/_sandbox/requests?area=subprojects&method=post`)).json()) as {
        requests: { path: string; body: unknown; status: number; headers: Record<string, string>; time: string }[];
      };
      assert.equal(posts.requests.length, 1);
      const r = posts.requests[0]!;
      assert.equal(r.path, `/subprojects/v1alpha1/projects/${account.projectId}/subprojects`);
      assert.deepEqual(r.body, { displayName: 'inspect me' });
      assert.equal(r.status, 200);
      assert.equal(r.headers.authorization, 'Bearer [redacted]');
      assert.ok(!JSON.stringify(all).includes(access_token), 'token never recorded');
      assert.ok(!Number.isNaN(Date.parse(r.time)));
      const byPath = (await (await fetch(`${url}/_sandbox/requests?pathContains=oauth2`)).json()) as { requests: { query: unknown }[] };
      assert.equal(byPath.requests.length, 1);
      const listed = (await (await fetch(`${url}/_sandbox/requests?method=GET`)).json()) as { requests: { query: unknown }[] };
      assert.deepEqual(listed.requests[0]!.query, { pageSize: 5 });
    } finally {
      await sb.close();
    }
  });

  test("an unknown path inside an area is a 404 in that area's error shape", async () => {
    const sb = await sandboxWith();
    try {
      const voice = await sb.app.inject({ method: 'GET', url: '/voice/calling/v1/nothing' });
      assert.equal(voice.statusCode, 404);
      assert.deepEqual(voice.json(), { errorCode: 40400, message: 'Not found: GET /voice/calling/v1/nothing' });
      const sub = await sb.app.inject({ method: 'GET', url: '/subprojects/nothing' });
      assert.equal((sub.json() as { error: { status: string } }).error.status, 'NOT_FOUND');
    } finally {
      await sb.close();
    }
  });
});
