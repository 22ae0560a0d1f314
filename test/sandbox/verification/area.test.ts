// Verification area of the sandbox: start per method, languages, validation, reports, status,
// expiry, the simulated phone and the device-side controls. Callbacks: sandbox-verification-callbacks.
import { test, describe, after, before, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { signApplicationRequest } from '../../../common/signing.js';
import { listenStub, sendJson } from '../../helpers/stub-server.js';
import { createSandbox, defaultSandboxAccount, type Sandbox, type SandboxAccount, type SandboxOptions } from '../../../sandbox/index.js';

const account = defaultSandboxAccount();
const BASE = '/verification/verification/v1/verifications';
const CONTENT_TYPE = 'application/json; charset=UTF-8';
const NUMBER = '+46700000001';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A request signed as the application over the full sandbox path; `raw` is sent as is. */
async function call(
  sb: Sandbox,
  method: string,
  url: string,
  body?: unknown,
  opts: { headers?: Record<string, string>; raw?: string; as?: SandboxAccount } = {},
): Promise<Answer> {
  const a = opts.as ?? account;
  const payload = opts.raw ?? (body === undefined ? '' : JSON.stringify(body));
  const signed = signApplicationRequest({ appKey: a.appKey, appSecret: a.appSecret, method, path: url, contentType: CONTENT_TYPE, body: payload });
  const res = await sb.app.inject({ method: method as 'GET', url, headers: { ...signed, ...opts.headers }, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, headers: res.headers, body: res.body ? (res.json() as Answer['body']) : {} };
}

const start = (sb: Sandbox, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(sb, 'POST', BASE, { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', ...body }, { ...(headers ? { headers } : {}) });
const number = (endpoint: string) => encodeURIComponent(endpoint);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function phone(sb: Sandbox, endpoint = NUMBER): Promise<Record<string, any>[]> {
  const res = await sb.app.inject({ method: 'GET', url: `/_sandbox/verification/phones/${number(endpoint)}` });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { messages: Record<string, unknown>[] }).messages;
}

async function lastCode(sb: Sandbox, endpoint = NUMBER): Promise<string> {
  const messages = await phone(sb, endpoint);
  return messages[messages.length - 1]!.code as string;
}

function withSandbox(opts: SandboxOptions = {}): () => Sandbox {
  let sb: Sandbox;
  before(async () => {
    sb = await createSandbox(opts);
  });
  beforeEach(async () => {
    await sb.app.inject({ method: 'POST', url: '/_sandbox/reset' });
  });
  after(() => sb.close());
  return () => sb;
}

describe('verification start', () => {
  const sb = withSandbox();

  test('sms: id, links, template, interception timeout, code type; the phone gets the code', async () => {
    const r = await start(sb(), { reference: 'ref-sms', custom: 'c1' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers['content-language'], 'en-US');
    assert.equal(r.body.method, 'sms');
    assert.match(r.body.id, /^\w{10,}$/);
    assert.deepEqual(r.body.sms, { template: 'Your verification code is {{CODE}}', interceptionTimeout: 298, codeType: 'Numeric' });
    assert.ok(r.body._links.some((l: { rel: string; href: string }) => l.rel === 'status' && l.href.endsWith(`/verifications/id/${r.body.id}`)));
    const [sms] = await phone(sb());
    assert.equal(sms!.kind, 'sms');
    assert.equal(sms!.verificationId, r.body.id);
    assert.match(sms!.code, /^\d{4}$/);
    assert.equal(sms!.text, `Your verification code is ${sms!.code}`);
    assert.equal(sms!.language, 'en-US');
  });

  test('sms code types: Alpha and Alphanumeric codes', async () => {
    const alpha = await start(sb(), { sms: { codeType: 'Alpha' } });
    assert.equal(alpha.body.sms.codeType, 'Alpha');
    assert.match(await lastCode(sb()), /^[A-Z]{5}$/);
    const alnum = await start(sb(), { sms: { codeType: 'Alphanumeric', expiry: '00:01:30' } });
    assert.equal(alnum.body.sms.interceptionTimeout, 90);
    assert.match(await lastCode(sb()), /^[A-Z0-9]{6}$/);
  });

  test('flashcall: cliFilter and timeouts; the calling CLI matches the filter', async () => {
    const r = await start(sb(), { method: 'flashcall' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const { cliFilter, ...timeouts } = r.body.flashCall;
    assert.deepEqual(timeouts, { interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 });
    const [call] = await phone(sb());
    assert.equal(call!.kind, 'flashcall');
    assert.match(call!.cli, new RegExp(cliFilter));
    assert.doesNotMatch('+46711111111', new RegExp(cliFilter));
  });

  test('callout: polling hints; the phone is called with a spoken code', async () => {
    const r = await start(sb(), { method: 'callout' });
    assert.deepEqual(r.body.callout, { startPollingAfter: 1, stopPollingAfter: 60, pollingInterval: 2 });
    const [c] = await phone(sb());
    assert.equal(c!.kind, 'callout');
    assert.match(c!.code, /^\d{4}$/);
    assert.match(c!.text, new RegExp(c!.code));
  });

  test('seamless: a targetUri under the verification base, nothing sent to the phone', async () => {
    const r = await start(sb(), { method: 'seamless' });
    assert.match(r.body.seamless.targetUri, new RegExp(`^http://[^/]+/verification/verification/v1/seamless/${r.body.id}/[0-9a-f]{32}$`));
    assert.deepEqual(await phone(sb()), []);
  });

  test('Basic authentication is accepted too', async () => {
    const res = await sb().app.inject({
      method: 'POST',
      url: BASE,
      headers: { authorization: `Basic ${Buffer.from(`${account.appKey}:${account.appSecret}`).toString('base64')}` },
      payload: { identity: { type: 'number', endpoint: NUMBER }, method: 'callout' },
    });
    assert.equal(res.statusCode, 200, res.body);
  });
});

describe('verification languages', () => {
  const sb = withSandbox();
  const lang = async (endpoint: string, headers?: Record<string, string>) => {
    const r = await call(sb(), 'POST', BASE, { identity: { type: 'number', endpoint }, method: 'sms' }, { ...(headers ? { headers } : {}) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return { language: r.headers['content-language'], template: r.body.sms.template as string };
  };

  test('Accept-Language picks an existing template; else the default en-US', async () => {
    assert.deepEqual(await lang(NUMBER, { 'accept-language': 'es-ES' }), { language: 'es-ES', template: 'Tu código de verificación es {{CODE}}' });
    assert.equal((await lang(NUMBER, { 'accept-language': 'it-IT, de;q=0.5' })).language, 'de-DE');
    assert.equal((await lang(NUMBER, { 'accept-language': 'it-IT' })).language, 'en-US');
    assert.match((await phone(sb())).map((m) => m.text).join('\n'), /Ihr Bestätigungscode lautet \d{4}/);
  });

  test('the application default applies when Accept-Language has no template; +33 always gets fr-FR', async () => {
    const put = await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { defaultLanguage: 'sv-SE' } });
    assert.equal(put.statusCode, 200, put.body);
    assert.equal((await lang(NUMBER, { 'accept-language': 'it-IT' })).language, 'sv-SE');
    assert.equal((await lang(NUMBER, { 'accept-language': 'es-ES' })).language, 'es-ES');
    assert.equal((await lang('+33612345678', { 'accept-language': 'es-ES' })).language, 'fr-FR');
    assert.equal((await lang('+33612345678')).language, 'fr-FR');
  });

  test("an account's own default language, and configured carrier overrides", async () => {
    const de: SandboxAccount = { ...account, verificationDefaultLanguage: 'de-DE' };
    const other = await createSandbox({ accounts: [de], carrierLanguageOverrides: { '+4670': 'sv-SE' } });
    try {
      const r = await call(other, 'POST', BASE, { identity: { type: 'number', endpoint: '+4915112345678' }, method: 'sms' }, { as: de });
      assert.equal(r.headers['content-language'], 'de-DE');
      const sv = await call(
        other,
        'POST',
        BASE,
        { identity: { type: 'number', endpoint: NUMBER }, method: 'sms' },
        { as: de, headers: { 'accept-language': 'es-ES' } },
      );
      assert.equal(sv.headers['content-language'], 'sv-SE');
      const fr = await call(other, 'POST', BASE, { identity: { type: 'number', endpoint: '+33612345678' }, method: 'sms' }, { as: de });
      assert.equal(fr.headers['content-language'], 'de-DE', 'the +33 default is replaced by the configured overrides');
    } finally {
      await other.close();
    }
  });
});

describe('verification validation and authentication', () => {
  const sb = withSandbox();
  const cases: [string, unknown, number, RegExp][] = [
    ['no identity', { method: 'sms' }, 40002, /^identity: missing parameter$/],
    ['no endpoint', { identity: { type: 'number' }, method: 'sms' }, 40002, /identity\.endpoint/],
    ['no method', { identity: { type: 'number', endpoint: NUMBER } }, 40002, /^method: missing parameter$/],
    ['an empty body', undefined, 40002, /identity.*method/],
    [
      'a number that is not E.164',
      { identity: { type: 'number', endpoint: '0700000001' }, method: 'sms' },
      40001,
      /^identity\.endpoint: not a valid E\.164 number$/,
    ],
    ['too few digits', { identity: { type: 'number', endpoint: '+4670000' }, method: 'sms' }, 40001, /identity\.endpoint/],
    ['another identity type', { identity: { type: 'email', endpoint: NUMBER }, method: 'sms' }, 40001, /identity\.type/],
    ['an unknown method', { identity: { type: 'number', endpoint: NUMBER }, method: 'fax' }, 40001, /^method: /],
    ['an unknown top-level field', { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', colour: 'blue' }, 40001, /^colour: unknown field$/],
    ['a reference over 128 characters', { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', reference: 'r'.repeat(129) }, 40001, /^reference: /],
    ['custom over 4096 characters', { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', custom: 'c'.repeat(4097) }, 40001, /^custom: /],
    ['a malformed sms.expiry', { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', sms: { expiry: '5 minutes' } }, 40001, /^sms\.expiry: /],
    ['an unknown sms.codeType', { identity: { type: 'number', endpoint: NUMBER }, method: 'sms', sms: { codeType: 'Emoji' } }, 40001, /^sms\.codeType: /],
    ['sms options on a flashcall', { identity: { type: 'number', endpoint: NUMBER }, method: 'flashcall', sms: {} }, 40001, /^sms: /],
  ];
  for (const [name, body, code, message] of cases) {
    test(`start with ${name}: 400 ${code} naming the field`, async () => {
      const r = await call(sb(), 'POST', BASE, body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.errorCode, code);
      assert.match(r.body.message, message);
      assert.equal(typeof r.body.reference, 'string');
    });
  }

  test('invalid JSON: 400 40003, after authentication', async () => {
    const r = await call(sb(), 'POST', BASE, undefined, { raw: '{"identity": ' });
    assert.equal(r.status, 400);
    assert.equal(r.body.errorCode, 40003);
    const unsigned = await sb().app.inject({ method: 'POST', url: BASE, headers: { 'content-type': CONTENT_TYPE }, payload: '{"identity": ' });
    assert.equal(unsigned.statusCode, 401);
  });

  test('unsigned: 401 40100; a bad signature: 401 40102; a stale timestamp: 401 40101', async () => {
    const payload = JSON.stringify({ identity: { type: 'number', endpoint: NUMBER }, method: 'sms' });
    const none = await sb().app.inject({ method: 'POST', url: BASE, headers: { 'content-type': CONTENT_TYPE }, payload });
    assert.equal(none.statusCode, 401);
    assert.equal((none.json() as { errorCode: number }).errorCode, 40100);
    const sign = (over: Partial<Parameters<typeof signApplicationRequest>[0]>) =>
      signApplicationRequest({
        appKey: account.appKey,
        appSecret: account.appSecret,
        method: 'POST',
        path: BASE,
        contentType: CONTENT_TYPE,
        body: payload,
        ...over,
      });
    const bad = await sb().app.inject({ method: 'POST', url: BASE, headers: sign({ appSecret: Buffer.alloc(32, 9).toString('base64') }), payload });
    assert.equal(bad.statusCode, 401);
    assert.equal((bad.json() as { errorCode: number }).errorCode, 40102);
    const stale = await sb().app.inject({ method: 'POST', url: BASE, headers: sign({ timestamp: '2014-06-02T15:39:31.272Z' }), payload });
    assert.equal((stale.json() as { errorCode: number }).errorCode, 40101);
    assert.deepEqual(await phone(sb()), [], 'nothing was sent');
  });

  test('report bodies: missing method or code 40002, wrong shapes and a method mismatch 40001', async () => {
    const id = (await start(sb(), {})).body.id as string;
    const report = (body: unknown) => call(sb(), 'PUT', `${BASE}/id/${id}`, body);
    const expect = async (body: unknown, code: number, message: RegExp) => {
      const r = await report(body);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.errorCode, code);
      assert.match(r.body.message, message);
    };
    await expect({ sms: { code: '1234' } }, 40002, /^method: missing parameter$/);
    await expect({ method: 'sms' }, 40002, /^sms: missing parameter$/);
    await expect({ method: 'sms', sms: {} }, 40002, /^sms\.code: missing parameter$/);
    await expect({ method: 'sms', sms: { code: 1234 } }, 40001, /^sms\.code: /);
    await expect({ method: 'flashcall', flashCall: { cli: '+46700123456' } }, 40001, /^method: .*started with method sms/);
    await expect({ method: 'seamless' }, 40001, /^method: /);
  });

  test('unknown id, number or reference: 404 40400', async () => {
    for (const [method, url, body] of [
      ['PUT', `${BASE}/id/nope`, { method: 'sms', sms: { code: '1' } }],
      ['PUT', `${BASE}/number/${number('+46799999999')}`, { method: 'sms', sms: { code: '1' } }],
      ['GET', `${BASE}/id/nope`, undefined],
      ['GET', `${BASE}/sms/number/${number('+46799999999')}`, undefined],
      ['GET', `${BASE}/reference/nothing`, undefined],
    ] as const) {
      const r = await call(sb(), method, url, body);
      assert.equal(r.status, 404, `${method} ${url}`);
      assert.equal(r.body.errorCode, 40400);
    }
  });

  test('over the rate limit: 429 42900 with Retry-After', async () => {
    const limited = await createSandbox({ rateLimits: { perProjectPerSecond: 2 } });
    try {
      const statuses: number[] = [];
      let last: Answer | undefined;
      for (let i = 0; i < 3; i++) {
        last = await call(limited, 'POST', BASE, { identity: { type: 'number', endpoint: NUMBER }, method: 'sms' });
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.equal(last!.body.errorCode, 42900);
      assert.ok(Number(last!.headers['retry-after']) >= 1);
    } finally {
      await limited.close();
    }
  });

  test("another application does not see this application's verifications", async () => {
    const other: SandboxAccount = {
      ...account,
      projectId: 'p2',
      keyId: 'k2',
      appKey: 'app-2',
      appSecret: Buffer.alloc(32, 3).toString('base64'),
      mmsApiKey: 'm2',
    };
    const two = await createSandbox({ accounts: [account, other] });
    try {
      const id = (await call(two, 'POST', BASE, { identity: { type: 'number', endpoint: NUMBER }, method: 'sms' })).body.id as string;
      assert.equal((await call(two, 'GET', `${BASE}/id/${id}`, undefined, { as: other })).status, 404);
      assert.equal((await call(two, 'GET', `${BASE}/id/${id}`)).status, 200);
    } finally {
      await two.close();
    }
  });
});

describe('verification reports and status', () => {
  const sb = withSandbox();

  test('a wrong code answers FAIL and keeps the verification PENDING; the right one makes it SUCCESSFUL', async () => {
    const id = (await start(sb(), { reference: 'ref-1' })).body.id as string;
    const code = await lastCode(sb());
    const wrong = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code: code === '0000' ? '1111' : '0000' } });
    assert.equal(wrong.status, 200);
    assert.deepEqual(wrong.body, { id, method: 'sms', status: 'FAIL', reason: 'Invalid code', reference: 'ref-1', source: 'manual' });
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${id}`)).body.status, 'PENDING');

    const right = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code } });
    assert.deepEqual(right.body, { id, method: 'sms', status: 'SUCCESSFUL', reference: 'ref-1', source: 'manual' });
    // Final: any further report answers the final status unchanged.
    const again = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code: 'zzzz' } });
    assert.deepEqual(again.body, right.body);
  });

  test('report by number reaches the newest verification of that number', async () => {
    await start(sb(), {});
    const newest = (await start(sb(), {})).body.id as string;
    const r = await call(sb(), 'PUT', `${BASE}/number/${number(NUMBER)}`, { method: 'sms', sms: { code: await lastCode(sb()) } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.id, newest);
    assert.equal(r.body.status, 'SUCCESSFUL');
  });

  test('status by id, by number and method, and by reference', async () => {
    const sms = await start(sb(), { reference: 'order-7', custom: 'tenant=a' }, { 'accept-language': 'sv-SE' });
    const id = sms.body.id as string;
    const byId = await call(sb(), 'GET', `${BASE}/id/${id}`);
    assert.equal(byId.status, 200);
    const { createdAt, ...rest } = byId.body;
    assert.deepEqual(rest, {
      id,
      method: 'sms',
      status: 'PENDING',
      reference: 'order-7',
      custom: 'tenant=a',
      identity: { type: 'number', endpoint: NUMBER },
      language: 'sv-SE',
    });
    assert.ok(Math.abs(Date.parse(createdAt) - Date.now()) < 5000);
    assert.deepEqual((await call(sb(), 'GET', `${BASE}/sms/number/${number(NUMBER)}`)).body, byId.body);
    assert.deepEqual((await call(sb(), 'GET', `${BASE}/reference/order-7`)).body, byId.body);
    // By method: an sms does not answer for flashcall.
    assert.equal((await call(sb(), 'GET', `${BASE}/flashcall/number/${number(NUMBER)}`)).status, 404);
    const badMethod = await call(sb(), 'GET', `${BASE}/fax/number/${number(NUMBER)}`);
    assert.equal(badMethod.body.errorCode, 40001);
  });

  test('a newer verification of the same number replaces the PENDING one (ABORTED)', async () => {
    const first = (await start(sb(), {})).body.id as string;
    const second = (await start(sb(), { method: 'callout' })).body.id as string;
    const old = await call(sb(), 'GET', `${BASE}/id/${first}`);
    assert.equal(old.body.status, 'ABORTED');
    assert.equal(old.body.reason, 'Replaced by a newer verification');
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${second}`)).body.status, 'PENDING');
    const late = await call(sb(), 'PUT', `${BASE}/id/${first}`, { method: 'sms', sms: { code: '0000' } });
    assert.equal(late.body.status, 'ABORTED');
  });

  test('flashcall: reporting the calling CLI succeeds, another CLI is Invalid CLI', async () => {
    const id = (await start(sb(), { method: 'flashcall' })).body.id as string;
    const [{ cli }] = (await phone(sb())) as [{ cli: string }];
    const wrong = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'flashcall', flashCall: { cli: '+46711111111' } });
    assert.equal(wrong.body.status, 'FAIL');
    assert.equal(wrong.body.reason, 'Invalid CLI');
    const right = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'flashcall', flashCall: { cli } });
    assert.equal(right.body.status, 'SUCCESSFUL');
    assert.equal(right.body.source, 'manual');
  });

  test('flashcall: the digits captured by cliFilter are accepted as the report', async () => {
    const r = await start(sb(), { method: 'flashcall' });
    const [{ cli }] = (await phone(sb())) as [{ cli: string }];
    const digits = new RegExp(r.body.flashCall.cliFilter).exec(cli)![1]!;
    const right = await call(sb(), 'PUT', `${BASE}/number/${number(NUMBER)}`, { method: 'flashcall', flashCall: { cli: digits } });
    assert.equal(right.body.status, 'SUCCESSFUL');
  });

  test('seamless: the device visiting targetUri makes it SUCCESSFUL (intercepted); a second visit changes nothing', async () => {
    const r = await start(sb(), { method: 'seamless' });
    const path = new URL(r.body.seamless.targetUri).pathname;
    const visit = await sb().app.inject({ method: 'GET', url: path });
    assert.equal(visit.statusCode, 200, visit.body);
    assert.deepEqual(visit.json(), { status: 'SUCCESSFUL' });
    const status = await call(sb(), 'GET', `${BASE}/id/${r.body.id}`);
    assert.equal(status.body.status, 'SUCCESSFUL');
    assert.equal(status.body.source, 'intercepted');
    assert.deepEqual((await sb().app.inject({ method: 'GET', url: path })).json(), { status: 'SUCCESSFUL' });
    const forged = await sb().app.inject({ method: 'GET', url: path.replace(/[0-9a-f]{32}$/, '0'.repeat(32)) });
    assert.equal(forged.statusCode, 404);
  });

  test('callout answered with the right code: SUCCESSFUL (intercepted); a wrong one: FAIL, hung up, final', async () => {
    const ok = (await start(sb(), { method: 'callout' })).body.id as string;
    const answered = await sb().app.inject({ method: 'POST', url: `/_sandbox/verification/${ok}/callout-answered`, payload: { code: await lastCode(sb()) } });
    assert.equal(answered.statusCode, 200, answered.body);
    assert.equal((answered.json() as { status: string }).status, 'SUCCESSFUL');
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${ok}`)).body.source, 'intercepted');

    const bad = (await start(sb(), { method: 'callout' })).body.id as string;
    const code = await lastCode(sb());
    await sb().app.inject({ method: 'POST', url: `/_sandbox/verification/${bad}/callout-answered`, payload: { code: code === '0000' ? '1111' : '0000' } });
    const after = await call(sb(), 'GET', `${BASE}/id/${bad}`);
    assert.equal(after.body.status, 'FAIL');
    assert.equal(after.body.reason, 'Hung up without entering valid code');
    assert.equal((await call(sb(), 'PUT', `${BASE}/id/${bad}`, { method: 'callout', callout: { code } })).body.status, 'FAIL');
  });

  test('callout: reporting the spoken code succeeds (manual)', async () => {
    const id = (await start(sb(), { method: 'callout' })).body.id as string;
    const r = await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'callout', callout: { code: await lastCode(sb()) } });
    assert.deepEqual(r.body, { id, method: 'callout', status: 'SUCCESSFUL', source: 'manual' });
  });

  test('unreachable numbers go ERROR right after start', async () => {
    await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { unreachableNumbers: ['+46700000009'] } });
    const r = await call(sb(), 'POST', BASE, { identity: { type: 'number', endpoint: '+46700000009' }, method: 'flashcall' });
    assert.equal(r.status, 200);
    const s = await call(sb(), 'GET', `${BASE}/id/${r.body.id}`);
    assert.equal(s.body.status, 'ERROR');
    assert.equal(s.body.reason, 'Network error or number unreachable');
    assert.deepEqual(await phone(sb(), '+46700000009'), []);
  });

  test('the request log shows starts and reports', async () => {
    const id = (await start(sb(), {})).body.id as string;
    await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code: await lastCode(sb()) } });
    const res = await sb().app.inject({ method: 'GET', url: '/_sandbox/requests?area=verification' });
    const requests = (res.json() as { requests: { method: string; path: string; status: number; body: { method?: string } }[] }).requests;
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path} ${r.status}`),
      [`POST ${BASE} 200`, `PUT ${BASE}/id/${id} 200`],
    );
    assert.equal(requests[1]!.body.method, 'sms');
  });

  test('reset forgets verifications, phones and configuration', async () => {
    const id = (await start(sb(), {})).body.id as string;
    await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { defaultLanguage: 'de-DE' } });
    await sb().app.inject({ method: 'POST', url: '/_sandbox/reset' });
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${id}`)).status, 404);
    assert.deepEqual(await phone(sb()), []);
    assert.equal((await start(sb(), {})).headers['content-language'], 'en-US');
  });

  test('the config route refuses unknown languages and fields', async () => {
    const lang = await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { defaultLanguage: 'xx-XX' } });
    assert.equal(lang.statusCode, 400);
    assert.match(lang.body, /defaultLanguage/);
    const field = await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { colour: 'blue' } });
    assert.equal(field.statusCode, 400);
  });
});

describe('verification expiry', () => {
  const sb = withSandbox({ verificationExpiryMs: 60 });

  test('a verification not reported in time is FAIL Expired, and then answers reports unchanged', async () => {
    const id = (await start(sb(), {})).body.id as string;
    const code = await lastCode(sb());
    await new Promise((r) => setTimeout(r, 150));
    const s = await call(sb(), 'GET', `${BASE}/id/${id}`);
    assert.equal(s.body.status, 'FAIL');
    assert.equal(s.body.reason, 'Expired');
    assert.equal((await call(sb(), 'PUT', `${BASE}/id/${id}`, { method: 'sms', sms: { code } })).body.status, 'FAIL');
  });

  test('sms.expiry wins over the sandbox default', async () => {
    await sb().app.inject({ method: 'PUT', url: '/_sandbox/verification/config', payload: { expiryMs: 600_000 } });
    const short = (await start(sb(), { sms: { expiry: '00:00:01' } })).body.id as string;
    const long = (await call(sb(), 'POST', BASE, { identity: { type: 'number', endpoint: '+46700000002' }, method: 'sms' })).body.id as string;
    await new Promise((r) => setTimeout(r, 1150));
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${short}`)).body.reason, 'Expired');
    assert.equal((await call(sb(), 'GET', `${BASE}/id/${long}`)).body.status, 'PENDING');
  });
});

describe('verification timers and close', () => {
  test('closing the sandbox cancels pending expiry and delivery timers: neither fires after it', async (t) => {
    const events: string[] = [];
    const url = await listenStub(t, (req, res) => {
      const event = (JSON.parse(req.text) as { event: string }).event;
      events.push(event);
      sendJson(res, 200, event === 'VerificationRequestEvent' ? { action: 'allow' } : {});
    });
    const sb = await createSandbox({ verificationCallbackUrl: url, verificationExpiryMs: 200, verificationSmsDeliveryDelayMs: 200 });
    assert.equal((await start(sb, {})).status, 200);
    await sb.close();
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(events, ['VerificationRequestEvent'], 'no delivery report nor expiry result after the close');
  });
});
