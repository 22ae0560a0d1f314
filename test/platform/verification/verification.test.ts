import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { verifyApplicationRequest } from '../../../common/signing.js';
import { ApplicationSignedAuth } from '../../../platform/auth/application.js';
import { PlatformHttp } from '../../../platform/http.js';
import { VerificationClient } from '../../../platform/verification/client.js';
import type { VerificationReport } from '../../../common/wire/verification.js';
import * as errors from '../../../platform/errors.js';
import { APP_KEY, APP_SECRET, oneUrlPlatformClients, signedStub, type SignedSeen } from '../../helpers/platform-config.js';

type Seen = SignedSeen;
type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A stub verification interface: records each request with its signature check over the bytes received; `answer` decides the reply. */
const startStub = (t: TestContext, answer: (req: Seen) => Answer) => signedStub(t, answer, 'application/json; charset=utf-8');

function clientFor(base: string): VerificationClient {
  return new VerificationClient({
    http: new PlatformHttp({ timeoutMs: 2000 }),
    baseUrl: `${base}/verification/`,
    auth: new ApplicationSignedAuth(APP_KEY, APP_SECRET),
  });
}

const COLLECTION = '/verification/verification/v1/verifications';

const statusBody = {
  id: 'v-1',
  method: 'sms',
  status: 'PENDING',
  reference: 'ref-1',
  custom: 'c',
  identity: { type: 'number', endpoint: '+46700000001' },
  language: 'en-US',
  createdAt: '2025-06-01T00:00:00.000Z',
};

test('start sends a signed POST with exactly the contract body and Accept-Language, and reads Content-Language and the sms details', async (t) => {
  const stub = await startStub(t, () => ({
    status: 200,
    headers: { 'content-language': 'es-ES' },
    body: {
      id: 'v-1',
      method: 'sms',
      _links: [{ rel: 'status', href: 'http://x/verification/v1/verifications/id/v-1', method: 'GET' }],
      sms: { template: 'Tu código es {{CODE}}', interceptionTimeout: 298, codeType: 'Numeric' },
    },
  }));
  const result = await clientFor(stub.base).start(
    {
      identity: { type: 'number', endpoint: '+46700000001' },
      method: 'sms',
      reference: 'ref-1',
      custom: 'order 7',
      sms: { expiry: '00:05:00', codeType: 'Numeric' },
    },
    { language: 'es-ES' },
  );
  assert.deepEqual(result, {
    contentLanguage: 'es-ES',
    verification: {
      id: 'v-1',
      method: 'sms',
      _links: [{ rel: 'status', href: 'http://x/verification/v1/verifications/id/v-1', method: 'GET' }],
      sms: { template: 'Tu código es {{CODE}}', interceptionTimeout: 298, codeType: 'Numeric' },
    },
  });

  assert.equal(stub.seen.length, 1);
  const req = stub.seen[0]!;
  assert.equal(req.method, 'POST');
  assert.equal(req.url, COLLECTION);
  assert.deepEqual(req.auth, { ok: true, appKey: APP_KEY });
  assert.match(req.headers.authorization!, new RegExp(`^Application ${APP_KEY}:[A-Za-z0-9+/=]+$`));
  assert.equal(req.headers['accept-language'], 'es-ES');
  assert.match(req.headers['content-type']!, /^application\/json/);
  assert.equal(
    req.raw.toString('utf8'),
    JSON.stringify({
      identity: { type: 'number', endpoint: '+46700000001' },
      method: 'sms',
      reference: 'ref-1',
      custom: 'order 7',
      sms: { expiry: '00:05:00', codeType: 'Numeric' },
    }),
  );
  // The signature covers the bytes: the same headers over other bytes do not verify.
  const tampered = verifyApplicationRequest({
    headers: req.headers,
    method: 'POST',
    path: req.url,
    rawBody: Buffer.from(req.raw.toString('utf8').replace('+46700000001', '+46700000002')),
    secretForKey: () => APP_SECRET,
  });
  assert.equal(tampered.ok, false);
});

test('start without a language states no language preference and leaves contentLanguage out; only the given fields are sent', async (t) => {
  const stub = await startStub(t, () => ({
    status: 200,
    body: { id: 'v-2', method: 'sms', sms: { template: 'Your verification code is {{CODE}}', interceptionTimeout: 298 } },
  }));
  const result = await clientFor(stub.base).start({ identity: { type: 'number', endpoint: '+46700000001' }, method: 'sms' });
  assert.deepEqual(result, { verification: { id: 'v-2', method: 'sms', sms: { template: 'Your verification code is {{CODE}}', interceptionTimeout: 298 } } });
  assert.equal('contentLanguage' in result, false);
  // Node's fetch (undici) adds `Accept-Language: *` of its own when none is set: no preference.
  assert.ok([undefined, '*'].includes(stub.seen[0]!.headers['accept-language']), `accept-language ${stub.seen[0]!.headers['accept-language']}`);
  assert.equal(stub.seen[0]!.raw.toString('utf8'), '{"identity":{"type":"number","endpoint":"+46700000001"},"method":"sms"}');
});

test('start parses the flashcall, callout and seamless response shapes', async (t) => {
  const bodies: Record<string, unknown> = {
    flashcall: { id: 'v-f', method: 'flashcall', flashCall: { cliFilter: '^\\+46700(\\d{6})$', interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 } },
    callout: { id: 'v-c', method: 'callout', callout: { startPollingAfter: 1, stopPollingAfter: 60, pollingInterval: 2 } },
    seamless: { id: 'v-s', method: 'seamless', seamless: { targetUri: 'http://x/verification/v1/seamless/v-s/tok' } },
  };
  const stub = await startStub(t, (req) => ({ status: 200, body: bodies[(JSON.parse(req.raw.toString('utf8')) as { method: string }).method] }));
  const client = clientFor(stub.base);
  const identity = { type: 'number' as const, endpoint: '+46700000001' };

  const f = await client.start({ identity, method: 'flashcall' });
  assert.deepEqual(f.verification, {
    id: 'v-f',
    method: 'flashcall',
    flashCall: { cliFilter: '^\\+46700(\\d{6})$', interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 },
  });
  assert.ok(new RegExp(f.verification.flashCall!.cliFilter).test('+46700123456'));

  const c = await client.start({ identity, method: 'callout' });
  assert.deepEqual(c.verification, { id: 'v-c', method: 'callout', callout: { startPollingAfter: 1, stopPollingAfter: 60, pollingInterval: 2 } });

  const s = await client.start({ identity, method: 'seamless' });
  assert.deepEqual(s.verification, { id: 'v-s', method: 'seamless', seamless: { targetUri: 'http://x/verification/v1/seamless/v-s/tok' } });
});

test('whatsapp and the code options: the start body carries exactly the given options, and the answer its codeType', async (t) => {
  const stub = await startStub(t, (req) => {
    const { method } = JSON.parse(req.raw.toString('utf8')) as { method: string };
    return {
      status: 200,
      body:
        method === 'whatsapp'
          ? { id: 'v-w', method, whatsapp: { codeType: 'Alpha', other: 1 } }
          : { id: 'v-s', method, sms: { template: 'x {{CODE}}', interceptionTimeout: 298 } },
    };
  });
  const client = clientFor(stub.base);
  const identity = { type: 'number' as const, endpoint: '+46700000001' };
  const w = await client.start({ identity, method: 'whatsapp', whatsapp: { codeType: 'Alpha', codeLength: 6 } });
  assert.deepEqual(w.verification, { id: 'v-w', method: 'whatsapp', whatsapp: { codeType: 'Alpha' } });
  assert.equal(
    stub.seen[0]!.raw.toString('utf8'),
    '{"identity":{"type":"number","endpoint":"+46700000001"},"method":"whatsapp","whatsapp":{"codeType":"Alpha","codeLength":6}}',
  );
  await client.start({ identity, method: 'sms', sms: { codeLength: 8, locale: 'de-DE' } });
  assert.equal(
    stub.seen[1]!.raw.toString('utf8'),
    '{"identity":{"type":"number","endpoint":"+46700000001"},"method":"sms","sms":{"codeLength":8,"locale":"de-DE"}}',
  );
});

test('report bodies are exactly the contract per method, by ID and by number (with + encoded), and the result is parsed', async (t) => {
  const stub = await startStub(t, (req) => {
    const body = JSON.parse(req.raw.toString('utf8')) as { method: string };
    return { status: 200, body: { id: 'v-9', method: body.method, status: 'SUCCESSFUL', reference: 'ref-9', source: 'manual', ignored: true } };
  });
  const client = clientFor(stub.base);
  const cases: Array<[VerificationReport, string]> = [
    [{ method: 'sms', sms: { code: '1234' } }, '{"method":"sms","sms":{"code":"1234"}}'],
    [{ method: 'flashcall', flashCall: { cli: '+46700123456' } }, '{"method":"flashcall","flashCall":{"cli":"+46700123456"}}'],
    [{ method: 'callout', callout: { code: '5678' } }, '{"method":"callout","callout":{"code":"5678"}}'],
    [{ method: 'whatsapp', whatsapp: { code: 'AB12' } }, '{"method":"whatsapp","whatsapp":{"code":"AB12"}}'],
  ];
  for (const [report, expected] of cases) {
    const byId = await client.reportById('v/9', report);
    assert.deepEqual(byId, { id: 'v-9', method: report.method, status: 'SUCCESSFUL', reference: 'ref-9', source: 'manual' });
    const req = stub.seen.at(-1)!;
    assert.equal(req.method, 'PUT');
    assert.equal(req.url, `${COLLECTION}/id/v%2F9`);
    assert.equal(req.raw.toString('utf8'), expected);
    assert.equal(req.auth.ok, true);

    await client.reportByIdentity('+46700000001', report);
    const byNumber = stub.seen.at(-1)!;
    assert.equal(byNumber.method, 'PUT');
    assert.equal(byNumber.url, `${COLLECTION}/number/%2B46700000001`);
    assert.equal(byNumber.raw.toString('utf8'), expected);
    assert.equal(byNumber.auth.ok, true, 'signed over the encoded path');
  }
});

test('a wrong code is a FAIL report result with its reason, not an error', async (t) => {
  const stub = await startStub(t, () => ({ status: 200, body: { id: 'v-1', method: 'sms', status: 'FAIL', reason: 'Invalid code', source: 'manual' } }));
  const result = await clientFor(stub.base).reportById('v-1', { method: 'sms', sms: { code: '0000' } });
  assert.deepEqual(result, { id: 'v-1', method: 'sms', status: 'FAIL', reason: 'Invalid code', source: 'manual' });
});

test('status by ID, by method and number, and by reference: signed GETs with encoded segments, parsed', async (t) => {
  const stub = await startStub(t, () => ({ status: 200, body: statusBody }));
  const client = clientFor(stub.base);

  assert.deepEqual(await client.statusById('v-1'), statusBody);
  assert.deepEqual(await client.statusByIdentity('flashcall', '+46700000001'), statusBody);
  assert.deepEqual(await client.statusByReference('flow/1 a+b'), statusBody);

  assert.deepEqual(
    stub.seen.map((r) => [r.method, r.url, r.raw.length, r.auth.ok]),
    [
      ['GET', `${COLLECTION}/id/v-1`, 0, true],
      ['GET', `${COLLECTION}/flashcall/number/%2B46700000001`, 0, true],
      ['GET', `${COLLECTION}/reference/flow%2F1%20a%2Bb`, 0, true],
    ],
  );
  // No body: empty Content-MD5 and no Content-Type, as the signing rules require.
  assert.equal(stub.seen[0]!.headers['content-md5'], '');
  assert.equal(stub.seen[0]!.headers['content-type'], undefined);
});

test('a status of a finished verification keeps reason and source; unknown fields are dropped', async (t) => {
  const finished = { ...statusBody, status: 'ABORTED', reason: 'Replaced by a newer verification', source: 'intercepted', extra: 1 };
  const stub = await startStub(t, () => ({ status: 200, body: finished }));
  const { extra: _extra, ...expected } = finished;
  assert.deepEqual(await clientFor(stub.base).statusById('v-1'), expected);
});

test('error answers map to typed errors', async (t) => {
  const answers: Answer[] = [];
  const stub = await startStub(t, () => answers.shift()!);
  const client = clientFor(stub.base);
  const start = () => client.start({ identity: { type: 'number', endpoint: '+46700000001' }, method: 'sms' });

  answers.push({ status: 403, body: { errorCode: 40300, message: 'Denied by callback', reference: 'ref-1' } });
  await assert.rejects(start(), (err: unknown) => {
    assert.ok(err instanceof errors.PlatformDeniedError);
    assert.equal(err instanceof errors.PlatformAuthError, false);
    assert.equal(err.name, 'PlatformDeniedError');
    assert.equal(err.retryable, false);
    assert.equal(err.httpStatus, 403);
    assert.equal(err.code, '40300');
    assert.deepEqual(err.details, { reference: 'ref-1' });
    assert.match(err.message, /Denied by callback/);
    return true;
  });

  answers.push({ status: 403, body: { errorCode: 40301, message: 'Forbidden' } });
  await assert.rejects(
    start(),
    (err: unknown) => err instanceof errors.PlatformAuthError && !(err instanceof errors.PlatformDeniedError) && err.code === '40301',
  );

  answers.push({ status: 400, body: { errorCode: 40001, message: 'identity.endpoint: not a valid E.164 number' } });
  await assert.rejects(start(), (err: unknown) => {
    assert.ok(err instanceof errors.PlatformValidationError);
    assert.equal(err.retryable, false);
    assert.equal(err.code, '40001');
    assert.match(err.message, /identity\.endpoint: not a valid E\.164 number/);
    return true;
  });

  answers.push({ status: 404, body: { errorCode: 40400, message: 'Verification not found' } });
  await assert.rejects(
    client.statusByReference('nope'),
    (err: unknown) => err instanceof errors.PlatformNotFoundError && err.code === '40400' && !err.retryable,
  );

  answers.push({ status: 503, body: { errorCode: 50300, message: 'Temporarily down' } });
  await assert.rejects(client.statusById('v-1'), (err: unknown) => err instanceof errors.PlatformUnavailableError && err.retryable && err.code === '50300');

  answers.push({ status: 429, headers: { 'retry-after': '3' }, body: { errorCode: 42900, message: 'Too many requests' } });
  await assert.rejects(
    client.reportById('v-1', { method: 'sms', sms: { code: '1' } }),
    (err: unknown) => err instanceof errors.PlatformRateLimitError && err.retryable && err.retryAfterMs === 3000,
  );

  assert.equal(answers.length, 0);
  assert.equal(stub.seen.length, 6);
});

test('errorCode 40001/40002/40003 are validation errors whatever the 4xx status; 40300 is denial only for verification', () => {
  for (const code of [40001, 40002, 40003]) {
    for (const area of ['verification', 'voice'] as const) {
      const err = errors.platformErrorFromResponse({ area, status: 415, body: { errorCode: code, message: 'bad' } });
      assert.ok(err instanceof errors.PlatformValidationError, `${area} ${code}`);
    }
  }
  // Without one of those codes a 415 stays unclassified.
  assert.equal(
    errors.platformErrorFromResponse({ area: 'verification', status: 415, body: { errorCode: 41500, message: 'x' } }).constructor,
    errors.PlatformError,
  );
  // A 5xx is transient even if it carries a validation-looking code.
  assert.ok(
    errors.platformErrorFromResponse({ area: 'verification', status: 503, body: { errorCode: 40001, message: 'x' } }) instanceof
      errors.PlatformUnavailableError,
  );
  assert.ok(errors.platformErrorFromResponse({ area: 'voice', status: 403, body: { errorCode: 40300, message: 'x' } }) instanceof errors.PlatformAuthError);
  assert.equal(
    errors.platformErrorFromResponse({ area: 'voice', status: 403, body: { errorCode: 40300, message: 'x' } }) instanceof errors.PlatformDeniedError,
    false,
  );
  assert.ok(
    errors.platformErrorFromResponse({ area: 'verification', status: 403, body: { errorCode: 40300, message: 'Denied by guard' } }) instanceof
      errors.PlatformDeniedError,
  );
});

test('a 2xx answer that is not a verification is a retryable INVALID_RESPONSE error', async (t) => {
  const bodies: unknown[] = ['<html>proxy</html>', { id: 'v-1', method: 'carrier-pigeon' }, { id: 'v-1', method: 'sms', status: 'WEIRD' }];
  const stub = await startStub(t, () => ({ status: 200, body: bodies.shift() }));
  const client = clientFor(stub.base);
  for (const call of [() => client.statusById('a'), () => client.statusById('b'), () => client.statusById('c')]) {
    await assert.rejects(call(), (err: unknown) => err instanceof errors.PlatformUnavailableError && err.code === 'INVALID_RESPONSE' && err.retryable);
  }
});

test('createPlatformClients builds the verification client on urls.verification, signed with the configured application key', async (t) => {
  const stub = await startStub(t, () => ({ status: 200, body: statusBody }));
  const { verification } = oneUrlPlatformClients(stub.base, {
    urls: { verification: `${stub.base}/verification` },
    credentials: { projectId: 'p', appKey: APP_KEY, appSecret: APP_SECRET },
  });
  assert.deepEqual(await verification.statusByReference('ref-1'), statusBody);
  assert.equal(stub.seen[0]!.url, `${COLLECTION}/reference/ref-1`);
  assert.deepEqual(stub.seen[0]!.auth, { ok: true, appKey: APP_KEY });
});
