import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  PlatformAuthError,
  PlatformConflictError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
} from '../../../platform/errors.js';
import {
  onlyPolicyId,
  platformTimeToMs,
  policyIdForAnswers,
  senderIdViolations,
  validateAttachment,
  validateRequestDetails,
} from '../../../platform/senderid/client.js';
import type { MarketVersion, Policy } from '../../../common/wire/senderid.js';
import { oneUrlPlatformClients, scriptedClient, type Answer, type Seen } from '../../helpers/platform-config.js';

/** Token service (tok-1, tok-2, ... one per fetch) and a sender ID interface under /sid answering `answer(request)`. */
const startStub = (t: TestContext, answer?: (r: Seen) => Answer) => scriptedClient(t, 'senderid', '/sid/', answer);

const P = '/sid/v1/projects/proj%201';
const oauthError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } });

const POLICY: Policy = {
  id: 'pol-au-alpha-aggregator',
  marketCode: 'AU',
  registrationType: 'ALPHANUMERIC_SENDER_ID',
  name: 'AU alphanumeric, aggregator',
  senderIdAssigned: false,
  manualApproval: false,
  fields: [
    {
      section: 'senderIdDetails',
      key: 'senderId',
      label: 'Sender ID',
      required: true,
      validations: [
        { rule: 'maxLength', value: 11, message: 'at most 11 characters' },
        { rule: 'pattern', value: '^[A-Za-z0-9 ]+$', message: 'letters, digits, spaces' },
      ],
    },
    { section: 'additionalDetails', key: 'companyName', label: 'Company name', required: true, validations: [] },
    {
      section: 'additionalDetails',
      key: 'useCase',
      label: 'Use case',
      required: false,
      validations: [{ rule: 'enum', value: ['OTP', 'MARKETING'], message: 'one of OTP, MARKETING' }],
    },
  ],
  attachmentDefinitions: [
    {
      id: 'att-loa',
      title: 'Letter of authorisation',
      description: '',
      mandatory: true,
      template: true,
      acceptedMimeTypes: ['application/pdf'],
      maxSizeBytes: 10,
    },
  ],
};

test('every operation uses its contract path, method, query and body, with the OAuth bearer and the configured project', async (t) => {
  const stub = await startStub(t);
  const c = stub.client;
  const create = {
    policyId: 'pol-1',
    requestDetails: [{ senderIdDetails: [{ senderId: 'ACME' }], additionalDetails: [{ companyName: 'Acme' }] }],
    tags: ['rf:k1'],
  };
  const calls: Array<[() => Promise<unknown>, string, string, Record<string, string>, unknown]> = [
    [() => c.marketAvailability({ registrationType: 'LONG_NUMBER' }), 'GET', `${P}/markets/availability`, { registrationType: 'LONG_NUMBER' }, undefined],
    [
      () => c.marketRequirements({ marketCode: 'AU', registrationType: 'LONG_NUMBER' }),
      'GET',
      `${P}/markets/details`,
      { marketCode: 'AU', registrationType: 'LONG_NUMBER' },
      undefined,
    ],
    [() => c.policyRequirements('pol/1'), 'GET', `${P}/policies/pol%2F1`, {}, undefined],
    [() => c.createRegistration(create), 'POST', `${P}/registrations`, {}, create],
    [() => c.getRegistration('r 1'), 'GET', `${P}/registrations/r%201`, {}, undefined],
    [
      () => c.listRegistrations({ marketCode: 'AU', registrationType: 'SHORT_CODE', registrationState: 'PENDING', pageSize: 5, pageToken: 'tk' }),
      'GET',
      `${P}/registrations`,
      { marketCode: 'AU', registrationType: 'SHORT_CODE', registrationState: 'PENDING', pageSize: '5', pageToken: 'tk' },
      undefined,
    ],
    [
      () => c.updateRegistration('r1', { notificationContacts: ['ops@acme.test'] }),
      'PUT',
      `${P}/registrations/r1`,
      {},
      { notificationContacts: ['ops@acme.test'] },
    ],
    [() => c.deleteRegistration('r1'), 'DELETE', `${P}/registrations/r1`, {}, undefined],
    [
      () => c.uploadAttachment('r1', 'att-loa', { fileName: 'loa.pdf', mimeType: 'application/pdf', content: Buffer.from([0, 255, 1]) }),
      'POST',
      `${P}/registrations/r1/attachments/att-loa`,
      {},
      { fileName: 'loa.pdf', mimeType: 'application/pdf', content: 'AP8B' },
    ],
    [() => c.getCallbackConfiguration(), 'GET', `${P}/callback-configuration`, {}, undefined],
    [() => c.setCallbackConfiguration('s3cret'), 'PUT', `${P}/callback-configuration`, {}, { hmacSecret: 's3cret' }],
  ];
  for (const [call, method, path, query, body] of calls) {
    await call();
    const r = stub.seen.at(-1)!;
    assert.deepEqual([r.method, r.path, r.query, r.body], [method, path, query, body], `${method} ${path}`);
    assert.equal(r.authorization, 'Bearer tok-1');
  }
  assert.equal(stub.tokenFetches(), 1);
});

test('listAllRegistrations follows nextPageToken with the largest page and the given filters', async (t) => {
  const pages: Record<string, { ids: string[]; next: string }> = {
    '': { ids: ['a', 'b'], next: 'p2' },
    p2: { ids: ['c'], next: 'p3' },
    p3: { ids: [], next: '' },
  };
  const stub = await startStub(t, (r) => {
    const p = pages[r.query.pageToken ?? '']!;
    return { body: { registrations: p.ids.map((id) => ({ id })), nextPageToken: p.next, totalSize: 3 } };
  });
  const ids: string[] = [];
  for await (const r of stub.client.listAllRegistrations({ marketCode: 'AU', registrationType: 'LONG_NUMBER' })) ids.push(r.id);
  assert.deepEqual(ids, ['a', 'b', 'c']);
  assert.deepEqual(
    stub.seen.map((s) => s.query),
    [
      { marketCode: 'AU', registrationType: 'LONG_NUMBER', pageSize: '100' },
      { marketCode: 'AU', registrationType: 'LONG_NUMBER', pageSize: '100', pageToken: 'p2' },
      { marketCode: 'AU', registrationType: 'LONG_NUMBER', pageSize: '100', pageToken: 'p3' },
    ],
  );
});

test('a page token handed out twice stops the listing instead of looping', async (t) => {
  const stub = await startStub(t, () => ({ body: { registrations: [{ id: 'x' }], nextPageToken: 'same' } }));
  await assert.rejects(async () => {
    for await (const _ of stub.client.listAllRegistrations()) void _;
  }, /page token repeated/);
});

test('errors are typed: validation with its violations, not found, conflict, auth, rate limit with Retry-After, unavailable', async (t) => {
  const violations = [
    { field: 'requestDetails[0].senderIdDetails.senderId', rule: 'maxLength', description: 'Sender ID: at most 11 characters' },
    { field: 'requestDetails[0].additionalDetails.companyName', rule: 'required', description: 'Company name is required' },
  ];
  const answers: Record<string, Answer> = {
    '/r400': { status: 400, body: oauthError(400, 'INVALID_ARGUMENT', 'Registration validation error', violations) },
    '/r404': { status: 404, body: oauthError(404, 'NOT_FOUND', 'Registration r404 not found') },
    '/r409': { status: 409, body: oauthError(409, 'FAILED_PRECONDITION', 'cannot be updated in state APPROVED') },
    '/r403': { status: 403, body: oauthError(403, 'PERMISSION_DENIED', 'not your project') },
    '/r429': { status: 429, body: oauthError(429, 'RESOURCE_EXHAUSTED', 'slow down'), headers: { 'retry-after': '7' } },
    '/r503': { status: 503, body: oauthError(503, 'UNAVAILABLE', 'try later') },
  };
  const stub = await startStub(t, (r) => answers[r.path.slice(`${P}/registrations`.length)] ?? { body: {} });
  const c = stub.client;

  const v = await c.getRegistration('r400').catch((e: unknown) => e);
  assert.ok(v instanceof PlatformValidationError);
  assert.equal(v.retryable, false);
  assert.equal(v.code, 'INVALID_ARGUMENT');
  assert.equal(v.area, 'senderid');
  assert.deepEqual(senderIdViolations(v), violations);

  const nf = await c.getRegistration('r404').catch((e: unknown) => e);
  assert.ok(nf instanceof PlatformNotFoundError);
  assert.equal(nf.retryable, false);
  assert.deepEqual(senderIdViolations(nf), []);
  assert.ok((await c.updateRegistration('r409', {}).catch((e: unknown) => e)) instanceof PlatformConflictError);
  assert.ok((await c.deleteRegistration('r403').catch((e: unknown) => e)) instanceof PlatformAuthError);

  const rl = await c.getRegistration('r429').catch((e: unknown) => e);
  assert.ok(rl instanceof PlatformRateLimitError);
  assert.equal(rl.retryable, true);
  assert.equal(rl.retryAfterMs, 7000);

  const un = await c.getRegistration('r503').catch((e: unknown) => e);
  assert.ok(un instanceof PlatformUnavailableError);
  assert.equal(un.retryable, true);
});

test('no answer at all is PlatformUnavailableError (retryable)', async () => {
  const err = await oneUrlPlatformClients('http://127.0.0.1:1', {
    urls: { auth: 'http://127.0.0.1:1' },
    credentials: { projectId: 'p' },
    requestTimeoutMs: 500,
  })
    .senderid.getRegistration('r1')
    .catch((e: unknown) => e);
  assert.ok(err instanceof PlatformUnavailableError);
  assert.equal(err.retryable, true);
});

test('template download keeps the bytes (binary), reads the file name, re-authenticates once after a 401 and types its errors', async (t) => {
  const bytes = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x80]);
  let first = true;
  const stub = await startStub(t, (r) => {
    if (r.path.endsWith('/att-none/template')) return { status: 404, body: oauthError(404, 'NOT_FOUND', 'no template') };
    if (first) {
      first = false;
      return { status: 401, body: oauthError(401, 'UNAUTHENTICATED', 'expired') };
    }
    return { raw: bytes, headers: { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="att-loa-template.pdf"' } };
  });
  const file = await stub.client.downloadTemplate('pol 1', 'att-loa');
  assert.deepEqual(file, { fileName: 'att-loa-template.pdf', contentType: 'application/pdf', content: bytes });
  assert.deepEqual(
    stub.seen.map((s) => [s.method, s.path, s.authorization]),
    [
      ['GET', `${P}/policies/pol%201/attachments/att-loa/template`, 'Bearer tok-1'],
      ['GET', `${P}/policies/pol%201/attachments/att-loa/template`, 'Bearer tok-2'],
    ],
  );
  const err = await stub.client.downloadTemplate('pol 1', 'att-none').catch((e: unknown) => e);
  assert.ok(err instanceof PlatformNotFoundError);
  assert.equal(err.code, 'NOT_FOUND');
});

test('callback configuration: undefined before any PUT (404), other errors thrown', async (t) => {
  let status = 404;
  const stub = await startStub(t, () => (status === 200 ? { body: { hmacSecret: 'x', projectId: 'proj 1' } } : { status, body: oauthError(status, 'X', 'x') }));
  assert.equal(await stub.client.getCallbackConfiguration(), undefined);
  status = 200;
  assert.deepEqual(await stub.client.getCallbackConfiguration(), { hmacSecret: 'x', projectId: 'proj 1' });
  status = 503;
  await assert.rejects(stub.client.getCallbackConfiguration(), PlatformUnavailableError);
});

test("validateRequestDetails gives the platform's field + rule, all at once, in field order", () => {
  assert.deepEqual(
    validateRequestDetails(POLICY, [{ senderIdDetails: [{ senderId: 'ACME' }], additionalDetails: [{ companyName: 'Acme' }, { useCase: 'OTP' }] }]),
    [],
  );
  assert.deepEqual(
    validateRequestDetails(POLICY, [{ senderIdDetails: [{ senderId: 'ACME_LONG_NAME!' }], additionalDetails: [{ useCase: 'SPAM', fax: '1' }], extra: [] }]).map(
      (v) => [v.field, v.rule],
    ),
    [
      ['requestDetails[0].extra', 'unknownField'],
      ['requestDetails[0].senderIdDetails.senderId', 'maxLength'],
      ['requestDetails[0].senderIdDetails.senderId', 'pattern'],
      ['requestDetails[0].additionalDetails.companyName', 'required'],
      ['requestDetails[0].additionalDetails.useCase', 'enum'],
      ['requestDetails[0].additionalDetails.fax', 'unknownField'],
    ],
  );
  assert.deepEqual(
    validateRequestDetails(POLICY, []).map((v) => [v.field, v.rule]),
    [['requestDetails', 'type']],
  );
  assert.deepEqual(
    validateRequestDetails(POLICY, undefined).map((v) => [v.field, v.rule]),
    [['requestDetails', 'required']],
  );
  const assigned: Policy = { ...POLICY, senderIdAssigned: true };
  assert.deepEqual(
    validateRequestDetails(assigned, [{ senderIdDetails: [{ senderId: 'X' }], additionalDetails: [{ companyName: 'A' }] }]).map((v) => [v.field, v.rule]),
    [['requestDetails[0].senderIdDetails.senderId', 'notAllowed']],
  );
  const def = POLICY.attachmentDefinitions[0]!;
  assert.deepEqual(validateAttachment(def, { mimeType: 'application/pdf', sizeBytes: 10 }), []);
  assert.deepEqual(
    validateAttachment(def, { mimeType: 'text/plain', sizeBytes: 11 }).map((v) => [v.field, v.rule]),
    [
      ['file.mimeType', 'mimeType'],
      ['file.content', 'maxSize'],
    ],
  );
  assert.deepEqual(
    validateAttachment(def, { mimeType: 'application/pdf', sizeBytes: 0 }).map((v) => [v.field, v.rule]),
    [['file.content', 'required']],
  );
});

test('policyIdForAnswers walks the special conditions; onlyPolicyId for single-branch markets; platform times are UTC', () => {
  const market: MarketVersion = {
    id: 'mv',
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
    status: 'ACTIVE',
    majorVersion: 1,
    minorVersion: 0,
    createTime: '',
    specialConditions: {
      prompt: 'Brand owner?',
      chainedSpecialConditions: [
        { policyId: 'pol-agg', answer: 'No', chainedSpecialConditions: [] },
        { answer: 'Yes', chainedSpecialConditions: [{ policyId: 'pol-brand-tm', answer: 'Trademark', chainedSpecialConditions: [] }] },
      ],
    },
  };
  assert.equal(policyIdForAnswers(market, ['no']), 'pol-agg');
  assert.equal(policyIdForAnswers(market, ['Yes', 'Trademark']), 'pol-brand-tm');
  assert.equal(policyIdForAnswers(market, ['Yes']), undefined);
  assert.equal(policyIdForAnswers(market, ['Maybe']), undefined);
  assert.equal(onlyPolicyId(market), undefined);
  assert.equal(
    onlyPolicyId({
      ...market,
      specialConditions: { prompt: '', chainedSpecialConditions: [{ policyId: 'p', answer: 'Standard', chainedSpecialConditions: [] }] },
    }),
    'p',
  );
  assert.equal(platformTimeToMs('2021-11-03T14:30:03'), Date.UTC(2021, 10, 3, 14, 30, 3));
  assert.equal(platformTimeToMs('2021-11-03T14:30:03Z'), Date.UTC(2021, 10, 3, 14, 30, 3));
});
