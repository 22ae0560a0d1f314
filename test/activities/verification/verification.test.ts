import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../../processes/activities.js';
import type { ReportableVerificationMethod } from '../../../common/wire/verification.js';
import { APP_KEY, APP_SECRET, applicationSignature, oneUrlPlatformClients } from '../../helpers/platform-config.js';
import { listenStub } from '../../helpers/stub-server.js';

interface StubVerification {
  id: string;
  method: string;
  status: string;
  reason?: string;
  reference?: string;
  custom?: string;
  identity: { type: 'number'; endpoint: string };
  code: string;
  language: string;
  createdAt: string;
}

interface StubOptions {
  existing?: StubVerification[];
  /** Record the started verification, then drop the connection (the platform acted, its answer was lost). */
  loseStartAnswer?: boolean;
  /** Answer starts with 403/40300, recording the verification as DENIED. */
  deny?: boolean;
  /** Answer the next reference lookups with this status (e.g. 503). */
  referenceFaults?: number[];
}

interface Seen {
  method: string;
  path: string;
  body: string;
}

/** A small verification emulator: start, report by ID, status by ID and by reference; application-signed only. */
async function startStub(t: TestContext, opts: StubOptions = {}) {
  const verifications = [...(opts.existing ?? [])];
  const referenceFaults = [...(opts.referenceFaults ?? [])];
  let loseNext = opts.loseStartAnswer ?? false;
  const seen: Seen[] = [];
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const err = (res: ServerResponse, status: number, errorCode: number, message: string) => send(res, status, { errorCode, message });
  const status = (v: StubVerification) => {
    const { code: _code, ...rest } = v;
    return rest;
  };

  const base = await listenStub(t, (req, res) => {
    const body = req.text;
    const path = req.url!;
    seen.push({ method: req.method!, path, body });
    const auth = applicationSignature(req, APP_KEY, APP_SECRET);
    if (!auth.ok) return err(res, 401, 40102, `Invalid signature (${auth.reason})`);

    const prefix = '/verification/verification/v1/verifications';
    if (!path.startsWith(prefix)) return err(res, 404, 40400, 'no route');
    const rest = path.slice(prefix.length);

    if (req.method === 'POST' && rest === '') {
      const input = JSON.parse(body) as { identity: { endpoint: string }; method: string; reference?: string; custom?: string };
      if (!/^\+\d{8,15}$/.test(input.identity.endpoint)) return err(res, 400, 40001, 'identity.endpoint: not a valid E.164 number');
      const v: StubVerification = {
        id: `v-${verifications.length + 1}`,
        method: input.method,
        status: opts.deny ? 'DENIED' : 'PENDING',
        ...(opts.deny ? { reason: 'Denied by callback' } : {}),
        reference: input.reference,
        ...(input.custom !== undefined ? { custom: input.custom } : {}),
        identity: { type: 'number', endpoint: input.identity.endpoint },
        code: '4321',
        language: req.headers['accept-language'] === 'es-ES' ? 'es-ES' : 'en-US',
        createdAt: '2025-06-01T00:00:00.000Z',
      };
      verifications.push(v);
      if (opts.deny) return err(res, 403, 40300, 'Denied by callback');
      if (loseNext) {
        loseNext = false;
        return req.socket.destroy();
      }
      const details: Record<string, unknown> = {
        sms: { sms: { template: 'Your verification code is {{CODE}}', interceptionTimeout: 298, codeType: 'Numeric' } },
        flashcall: { flashCall: { cliFilter: '^\\+46700(\\d{6})$', interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 } },
        callout: { callout: { startPollingAfter: 1, stopPollingAfter: 60, pollingInterval: 2 } },
        seamless: { seamless: { targetUri: `http://stub/verification/v1/seamless/${v.id}/tok` } },
      };
      return send(res, 200, { id: v.id, method: v.method, _links: [], ...(details[v.method] as object) }, { 'content-language': v.language });
    }

    let m = /^\/reference\/([^/]+)$/.exec(rest);
    if (req.method === 'GET' && m) {
      const fault = referenceFaults.shift();
      if (fault !== undefined) return err(res, fault, fault * 100, 'injected');
      const v = [...verifications].reverse().find((x) => x.reference === decodeURIComponent(m![1]!)); // the newest, as the platform
      return v ? send(res, 200, status(v)) : err(res, 404, 40400, 'Verification not found');
    }
    m = /^\/id\/([^/]+)$/.exec(rest);
    if (m) {
      const v = verifications.find((x) => x.id === decodeURIComponent(m![1]!));
      if (!v) return err(res, 404, 40400, 'Verification not found');
      if (req.method === 'GET') return send(res, 200, status(v));
      if (req.method === 'PUT') {
        const report = JSON.parse(body) as { method: string; sms?: { code: string }; callout?: { code: string }; flashCall?: { cli: string } };
        if (report.method !== v.method) return err(res, 400, 40001, 'method: does not match the verification');
        if (v.status !== 'PENDING')
          return send(res, 200, { id: v.id, method: v.method, status: v.status, reason: v.reason, reference: v.reference, source: 'manual' });
        const given = report.sms?.code ?? report.callout?.code ?? report.flashCall?.cli;
        const expected = v.method === 'flashcall' ? '+46700123456' : v.code;
        if (given !== expected)
          return send(res, 200, {
            id: v.id,
            method: v.method,
            status: 'FAIL',
            reason: v.method === 'flashcall' ? 'Invalid CLI' : 'Invalid code',
            reference: v.reference,
            source: 'manual',
          });
        v.status = 'SUCCESSFUL';
        return send(res, 200, { id: v.id, method: v.method, status: 'SUCCESSFUL', reference: v.reference, source: 'manual' });
      }
    }
    return err(res, 404, 40400, 'no route');
  });
  const posts = () => seen.filter((s) => s.method === 'POST');
  return { base, seen, posts, verifications };
}

function activitiesFor(base: string) {
  const clients = oneUrlPlatformClients(base, {
    urls: { verification: `${base}/verification` },
    credentials: { projectId: 'p', appKey: APP_KEY, appSecret: APP_SECRET },
  });
  return createActivities({ clients });
}

const existing = (over: Partial<StubVerification> = {}): StubVerification => ({
  id: 'v-old',
  method: 'sms',
  status: 'PENDING',
  reference: 'ref-1',
  identity: { type: 'number', endpoint: '+46700000001' },
  code: '1111',
  language: 'sv-SE',
  createdAt: '2025-05-01T00:00:00.000Z',
  ...over,
});

function failure(err: unknown): ApplicationFailure {
  assert.ok(err instanceof ApplicationFailure, `expected an ApplicationFailure, got ${String(err)}`);
  return err;
}

test('startVerification with an unknown reference looks it up, then starts exactly once', async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  const result = await a.startVerification({ identity: '+46700000001', method: 'sms', token: 'ref-1', language: 'es-ES', sms: { expiryMs: 300_000 } });
  assert.deepEqual(result, {
    verificationId: 'v-1',
    method: 'sms',
    contentLanguage: 'es-ES',
    status: 'PENDING',
    sms: { template: 'Your verification code is {{CODE}}', interceptionTimeout: 298, codeType: 'Numeric' },
    resumed: false,
  });
  assert.deepEqual(
    stub.seen.map((s) => `${s.method} ${s.path}`),
    ['GET /verification/verification/v1/verifications/reference/ref-1', 'POST /verification/verification/v1/verifications'],
  );
  assert.deepEqual(JSON.parse(stub.posts()[0]!.body), {
    identity: { type: 'number', endpoint: '+46700000001' },
    method: 'sms',
    reference: 'ref-1',
    custom: 'ref-1',
    sms: { expiry: '00:05:00' },
  });
});

test('startVerification skips the look-up only on a first try the workflow vouches for, at attempt 1', async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  const paths = () => stub.seen.map((s) => `${s.method} ${s.path.replace(/^\/verification\/verification\/v1\/verifications/, '')}`);
  const input = { identity: '+46700000001', method: 'sms' as const };

  await new MockActivityEnvironment({ attempt: 1 }).run(a.startVerification, { ...input, token: 'ref-a', firstTry: true });
  assert.deepEqual(paths(), ['POST '], 'first try at attempt 1: no look-up');

  await new MockActivityEnvironment({ attempt: 2 }).run(a.startVerification, { ...input, token: 'ref-b', firstTry: true });
  assert.deepEqual(paths().slice(1), ['GET /reference/ref-b', 'POST '], 'a retry looks up');

  // A local activity restarts at attempt 1 when its workflow task is retried: the workflow's word decides.
  await new MockActivityEnvironment({ attempt: 1 }).run(a.startVerification, { ...input, token: 'ref-c', firstTry: false });
  assert.deepEqual(paths().slice(3), ['GET /reference/ref-c', 'POST ']);
});

test('startVerification after a lost answer resumes the accepted verification instead of starting a second', async (t) => {
  const stub = await startStub(t, { loseStartAnswer: true });
  const a = activitiesFor(stub.base);
  const input = { identity: '+46700000001', method: 'sms' as const, token: 'ref-lost' };

  // First attempt: the platform accepted, the answer never came; Temporal will retry it.
  await assert.rejects(a.startVerification(input), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'PlatformUnavailableError');
    assert.equal(f.nonRetryable, false);
    return true;
  });
  assert.equal(stub.posts().length, 1);

  // The retry finds it by reference and sends nothing new.
  const resumed = await a.startVerification(input);
  assert.deepEqual(resumed, { verificationId: 'v-1', method: 'sms', contentLanguage: 'en-US', status: 'PENDING', resumed: true });
  assert.equal(stub.posts().length, 1, 'no second POST');
  assert.equal(stub.verifications.length, 1);
});

test("startVerification with the caller's reference sends it as reference and the token as custom", async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  const first = await a.startVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.1', reference: 'order-42' });
  assert.deepEqual(JSON.parse(stub.posts()[0]!.body), {
    identity: { type: 'number', endpoint: '+46700000001' },
    method: 'sms',
    reference: 'order-42',
    custom: 'rf-x.0.1',
  });
  // A retry of the same send finds it by the caller's reference and its token: nothing new is sent.
  const again = await a.startVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.1', reference: 'order-42' });
  assert.equal(again.verificationId, first.verificationId);
  assert.equal(again.resumed, true);
  assert.equal(stub.posts().length, 1);
  // A resend (another token) with the same reference is a new platform verification, not a false "found".
  const resend = await a.startVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.2', reference: 'order-42' });
  assert.equal(resend.resumed, false);
  assert.notEqual(resend.verificationId, first.verificationId);
  assert.equal(stub.posts().length, 2);
  assert.equal(JSON.parse(stub.posts()[1]!.body).custom, 'rf-x.0.2');
  // ...and a retry of the resend resumes the newest one.
  const resendAgain = await a.startVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.2', reference: 'order-42' });
  assert.equal(resendAgain.verificationId, resend.verificationId);
  assert.equal(stub.posts().length, 2);
});

test('startVerification with a known reference returns it in whatever state, with no POST', async (t) => {
  const stub = await startStub(t, { existing: [existing({ status: 'FAIL', reason: 'Expired', method: 'callout' })] });
  const a = activitiesFor(stub.base);
  const result = await a.startVerification({ identity: '+46700000001', method: 'callout', token: 'ref-1' });
  assert.deepEqual(result, { verificationId: 'v-old', method: 'callout', contentLanguage: 'sv-SE', status: 'FAIL', reason: 'Expired', resumed: true });
  assert.equal(stub.posts().length, 0);
});

test('findVerification resumes the send it finds by reference and never starts one', async (t) => {
  const stub = await startStub(t, { existing: [existing({ custom: 'rf-x.0.1', reference: 'order-42' })] });
  const a = activitiesFor(stub.base);
  const found = await a.findVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.1', reference: 'order-42' });
  assert.deepEqual(found, { found: { verificationId: 'v-old', method: 'sms', contentLanguage: 'sv-SE', status: 'PENDING', resumed: true } });
  // Another send's token under the same reference, or a reference nobody used: nothing found, nothing started.
  assert.deepEqual(await a.findVerification({ identity: '+46700000001', method: 'sms', token: 'rf-x.0.2', reference: 'order-42' }), {});
  assert.deepEqual(await a.findVerification({ identity: '+46700000001', method: 'sms', token: 'rf-unknown.0.1' }), {});
  assert.equal(stub.posts().length, 0);
});

test('smsReceipts on a worker without the store reads none', async (t) => {
  const stub = await startStub(t);
  assert.deepEqual(await activitiesFor(stub.base).smsReceipts({ processId: 'verification:01J00000000000000000000000' }), { receipts: [] });
});

test('startVerification refuses to resume a reference that belongs to another number or method', async (t) => {
  const stub = await startStub(t, {
    existing: [existing({ identity: { type: 'number', endpoint: '+46700000999' } }), existing({ id: 'v-x', reference: 'ref-2', method: 'flashcall' })],
  });
  const a = activitiesFor(stub.base);
  for (const input of [
    { identity: '+46700000001', method: 'sms' as const, token: 'ref-1' },
    { identity: '+46700000001', method: 'sms' as const, token: 'ref-2' },
  ]) {
    await assert.rejects(a.startVerification(input), (err: unknown) => {
      const f = failure(err);
      assert.equal(f.type, 'VerificationReferenceConflict');
      assert.equal(f.nonRetryable, true);
      assert.doesNotMatch(f.message, /\+467/, 'no phone number in the message');
      return true;
    });
  }
  assert.equal(stub.posts().length, 0);
});

test('startVerification: a failing reference lookup is retryable and starts nothing', async (t) => {
  const stub = await startStub(t, { referenceFaults: [503] });
  const a = activitiesFor(stub.base);
  await assert.rejects(a.startVerification({ identity: '+46700000001', method: 'sms', token: 'ref-1' }), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'PlatformUnavailableError');
    assert.equal(f.nonRetryable, false);
    return true;
  });
  assert.equal(stub.posts().length, 0);
});

test('startVerification denied (403/40300) is a non-retryable PlatformDeniedError failure', async (t) => {
  const stub = await startStub(t, { deny: true });
  const a = activitiesFor(stub.base);
  await assert.rejects(a.startVerification({ identity: '+46700000001', method: 'sms', token: 'ref-1' }), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'PlatformDeniedError');
    assert.equal(f.nonRetryable, true);
    assert.deepEqual(f.details, [{ httpStatus: 403, code: '40300', details: undefined }]);
    assert.match(f.message, /Denied by callback/);
    return true;
  });
  assert.equal(stub.posts().length, 1);
});

test('startVerification with an invalid number is a non-retryable PlatformValidationError naming the field', async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  await assert.rejects(a.startVerification({ identity: '46700000001', method: 'sms', token: 'ref-1' }), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'PlatformValidationError');
    assert.equal(f.nonRetryable, true);
    assert.match(f.message, /identity\.endpoint: not a valid E\.164 number/);
    return true;
  });
});

test("startVerification sends sms options only for sms and returns each method's details", async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  const f = await a.startVerification({ identity: '+46700000001', method: 'flashcall', token: 'ref-f', sms: { expiryMs: 60_000 } });
  assert.deepEqual(f.flashCall, { cliFilter: '^\\+46700(\\d{6})$', interceptionTimeout: 45, reportTimeout: 75, denyCallAfter: 0 });
  assert.equal(f.sms, undefined);
  assert.equal(JSON.parse(stub.posts()[0]!.body).sms, undefined);
  const c = await a.startVerification({ identity: '+46700000002', method: 'callout', token: 'ref-c' });
  assert.deepEqual(c.callout, { startPollingAfter: 1, stopPollingAfter: 60, pollingInterval: 2 });
  const s = await a.startVerification({ identity: '+46700000003', method: 'seamless', token: 'ref-s' });
  assert.deepEqual(s.seamless, { targetUri: 'http://stub/verification/v1/seamless/v-3/tok' });
});

test('reportCode builds the body per method and returns the platform result', async (t) => {
  const stub = await startStub(t, {
    existing: [
      existing({ id: 'v-sms', reference: 'r1', method: 'sms', code: '1234' }),
      existing({ id: 'v-call', reference: 'r2', method: 'callout', code: '5678' }),
      existing({ id: 'v-flash', reference: 'r3', method: 'flashcall' }),
    ],
  });
  const a = activitiesFor(stub.base);
  const cases: Array<[string, ReportableVerificationMethod, string, string]> = [
    ['v-sms', 'sms', '1234', '{"method":"sms","sms":{"code":"1234"}}'],
    ['v-call', 'callout', '5678', '{"method":"callout","callout":{"code":"5678"}}'],
    ['v-flash', 'flashcall', '+46700123456', '{"method":"flashcall","flashCall":{"cli":"+46700123456"}}'],
  ];
  for (const [verificationId, method, code, body] of cases) {
    const result = await a.reportCode({ verificationId, method, code });
    assert.deepEqual(result, {
      id: verificationId,
      method,
      status: 'SUCCESSFUL',
      reference: stub.verifications.find((v) => v.id === verificationId)!.reference,
      source: 'manual',
    });
    const put = stub.seen.at(-1)!;
    assert.equal(put.method, 'PUT');
    assert.equal(put.path, `/verification/verification/v1/verifications/id/${verificationId}`);
    assert.equal(put.body, body);
  }
});

test('reportCode with a wrong code answers FAIL "Invalid code" and the verification stays pending', async (t) => {
  const stub = await startStub(t, { existing: [existing({ id: 'v-sms', code: '1234' })] });
  const a = activitiesFor(stub.base);
  assert.deepEqual(await a.reportCode({ verificationId: 'v-sms', method: 'sms', code: '0000' }), {
    id: 'v-sms',
    method: 'sms',
    status: 'FAIL',
    reason: 'Invalid code',
    reference: 'ref-1',
    source: 'manual',
  });
  assert.equal((await a.getVerificationStatus({ verificationId: 'v-sms' })).status, 'PENDING');
  assert.equal((await a.reportCode({ verificationId: 'v-sms', method: 'sms', code: '1234' })).status, 'SUCCESSFUL');
});

test('reportCode for seamless fails non-retryably without calling the platform', async (t) => {
  const stub = await startStub(t);
  const a = activitiesFor(stub.base);
  await assert.rejects(a.reportCode({ verificationId: 'v-1', method: 'seamless' as ReportableVerificationMethod, code: 'x' }), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'VerificationMethodNotReportable');
    assert.equal(f.nonRetryable, true);
    return true;
  });
  assert.equal(stub.seen.length, 0);
});

test('reportCode with the wrong method is a PlatformValidationError; unknown ids are PlatformNotFoundError', async (t) => {
  const stub = await startStub(t, { existing: [existing({ id: 'v-sms' })] });
  const a = activitiesFor(stub.base);
  await assert.rejects(
    a.reportCode({ verificationId: 'v-sms', method: 'callout', code: '1111' }),
    (err: unknown) => failure(err).type === 'PlatformValidationError' && failure(err).nonRetryable,
  );
  await assert.rejects(
    a.reportCode({ verificationId: 'v-none', method: 'sms', code: '1111' }),
    (err: unknown) => failure(err).type === 'PlatformNotFoundError' && failure(err).nonRetryable,
  );
});

test('getVerificationStatus returns the status; an unknown ID is a non-retryable PlatformNotFoundError', async (t) => {
  const stub = await startStub(t, { existing: [existing({ status: 'ABORTED', reason: 'Replaced by a newer verification' })] });
  const a = activitiesFor(stub.base);
  assert.deepEqual(await a.getVerificationStatus({ verificationId: 'v-old' }), {
    id: 'v-old',
    method: 'sms',
    status: 'ABORTED',
    reason: 'Replaced by a newer verification',
    reference: 'ref-1',
    identity: { type: 'number', endpoint: '+46700000001' },
    language: 'sv-SE',
    createdAt: '2025-05-01T00:00:00.000Z',
  });
  await assert.rejects(a.getVerificationStatus({ verificationId: 'v-none' }), (err: unknown) => {
    const f = failure(err);
    assert.equal(f.type, 'PlatformNotFoundError');
    assert.equal(f.nonRetryable, true);
    return true;
  });
});
