import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createSandbox } from '../../../sandbox/index.js';
import { sandboxClients } from '../../helpers/sandbox-clients.js';
import { scriptedClient, type Answer, type Seen } from '../../helpers/platform-config.js';
import { rcsSenderFields } from '../../helpers/provisioning.js';
import {
  PlatformAuthError,
  PlatformConflictError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
} from '../../../platform/errors.js';
import {
  isProvisioningError,
  isProvisioningTrigger,
  PROVISIONING_TRIGGERS,
  provisioningErrorDetails,
  type Template,
} from '../../../platform/provisioning/client.js';

/**
 * Scripted stub: the token service (a new token per fetch: tok-1, tok-2, ...) plus a provisioning
 * interface under /prov that answers with `answer(request)` (200 with no body by default) and records what it got.
 */
const startStub = (t: TestContext, answer: (r: Seen) => Answer = () => ({})) => scriptedClient(t, 'provisioning', '/prov/', answer);

const P = '/prov/v1/projects/proj%201';

const template = (n: number, extra: Partial<Template> = {}): Template => ({
  id: `tpl-${n}`,
  name: `name_${n}`,
  language: 'en_US',
  category: 'UTILITY',
  state: 'APPROVED',
  allowCategoryChange: false,
  components: [{ type: 'BODY', text: 'hi' }],
  comments: [],
  version: 1,
  updateTime: '2025-01-01T00:00:00Z',
  ...extra,
});

const invalid = (validationErrors: Array<{ field: string; description: string }>): Answer => ({
  status: 400,
  body: { errorCode: 'invalid_input', message: 'The request is invalid', resolution: 'Fix the fields', validationErrors },
});

test('every operation uses its contract path, method and body, with the OAuth bearer and the configured project', async (t) => {
  const stub = await startStub(t);
  const c = stub.client;
  const webhook = { target: 'https://example.test/hook', secret: 'secret-123', triggers: ['CHATA_TEMPLATE_APPROVED' as const] };
  const tpl = {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY' as const,
    status: 'DRAFT' as const,
    components: [{ type: 'BODY' as const, text: 'Hi {{1}}' }],
  };
  const rcs = rcsSenderFields('Acme', { description: 'Acme agent' });
  const chata = {
    phoneNumber: '+15550001111',
    displayName: 'Acme',
    vertical: 'OTHER' as const,
    conversationApiAppDetails: { appId: '01J0000000000000000000000A', region: 'EU' as const },
  };
  const calls: Array<[() => Promise<unknown>, string, string, unknown]> = [
    [() => c.webhooks.create(webhook), 'POST', `${P}/webhooks`, webhook],
    [() => c.webhooks.list(), 'GET', `${P}/webhooks`, undefined],
    [() => c.webhooks.delete('wh/1'), 'DELETE', `${P}/webhooks/wh%2F1`, undefined],
    [() => c.chataTemplates.create(tpl), 'POST', `${P}/chata/templates`, tpl],
    [() => c.chatbTemplates.create(tpl), 'POST', `${P}/chatb/templates`, tpl],
    [() => c.templates('CHATB').get('t 1'), 'GET', `${P}/chatb/templates/t%201`, undefined],
    [() => c.chataTemplates.submit('t1'), 'POST', `${P}/chata/templates/t1:submit`, undefined],
    [
      () => c.chataTemplates.update('t1', { components: tpl.components, status: 'SUBMIT' }),
      'PATCH',
      `${P}/chata/templates/t1`,
      { components: tpl.components, status: 'SUBMIT' },
    ],
    [() => c.chatbTemplates.delete('t1'), 'DELETE', `${P}/chatb/templates/t1`, undefined],
    [() => c.rcs.create(rcs), 'POST', `${P}/rcs/senders`, rcs],
    [() => c.rcs.get('s1'), 'GET', `${P}/rcs/senders/s1`, undefined],
    [() => c.rcs.answerQuestionnaire('s1', { siren: '123' }), 'PUT', `${P}/rcs/senders/s1/questionnaire`, { answers: { siren: '123' } }],
    [() => c.rcs.launch('s1', { email: 'ops@acme.test' }), 'POST', `${P}/rcs/senders/s1:launch`, { contact: { email: 'ops@acme.test' } }],
    [() => c.rcs.relaunch('s1', { phoneNumber: '+33600000000' }), 'POST', `${P}/rcs/senders/s1:relaunch`, { contact: { phoneNumber: '+33600000000' } }],
    [
      () => c.rcs.addTestNumber('s1', { phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'] }),
      'POST',
      `${P}/rcs/senders/s1/testNumbers`,
      { phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'] },
    ],
    [() => c.chataSenders.create(chata), 'POST', `${P}/chata/senders`, chata],
    [
      () => c.chataSenders.createEmbedded({ businessAccountId: 'b1', phoneNumberId: 'p1' }),
      'POST',
      `${P}/chata/senders:embedded`,
      { businessAccountId: 'b1', phoneNumberId: 'p1' },
    ],
    [() => c.chataSenders.get('s2'), 'GET', `${P}/chata/senders/s2`, undefined],
    [() => c.chatbSenders.categories(), 'GET', `${P}/chatb/categories`, undefined],
    [
      () => c.chatbSenders.create({ displayName: 'Acme', categoryCode: 'RETAIL' }),
      'POST',
      `${P}/chatb/senders`,
      { displayName: 'Acme', categoryCode: 'RETAIL' },
    ],
    [() => c.chatbSenders.get('s3'), 'GET', `${P}/chatb/senders/s3`, undefined],
    [() => c.rcs.delete('s 1'), 'DELETE', `${P}/rcs/senders/s%201`, undefined],
    [() => c.chataSenders.delete('s2'), 'DELETE', `${P}/chata/senders/s2`, undefined],
    [() => c.chatbSenders.delete('s3'), 'DELETE', `${P}/chatb/senders/s3`, undefined],
  ];
  for (const [call, method, path, body] of calls) {
    const before = stub.seen.length;
    await call();
    assert.equal(stub.seen.length, before + 1, `${method} ${path}: one request`);
    const r = stub.seen.at(-1)!;
    assert.deepEqual([r.method, r.path, r.body], [method, path, body]);
    assert.equal(r.authorization, 'Bearer tok-1');
  }
  assert.equal(stub.tokenFetches(), 1, 'one token for all requests');
});

test('questionnaire: use case in the path, countries as one comma-separated query value', async (t) => {
  const questionnaire = { useCase: 'MULTIUSE', questions: [{ id: 'siren', text: 'SIREN?', required: true, country: 'FR' }] };
  const stub = await startStub(t, () => ({ body: questionnaire }));
  assert.deepEqual(await stub.client.rcs.getQuestionnaire('MULTIUSE', ['FR', 'US']), questionnaire);
  assert.deepEqual([stub.seen[0]!.path, stub.seen[0]!.query], [`${P}/rcs/questionnaire/MULTIUSE`, { countries: 'FR,US' }]);
  await stub.client.rcs.getQuestionnaire('OTP');
  assert.deepEqual(stub.seen[1]!.query, {});
});

test('template lists: listAll follows nextPageToken with pageSize and filterStates on every page', async (t) => {
  const all = [1, 2, 3, 4, 5].map((n) => template(n));
  const stub = await startStub(t, (r) => {
    const start = Number(r.query.pageToken ?? 0);
    const next = start + 2 < all.length ? String(start + 2) : '';
    return { body: { templates: all.slice(start, start + 2), nextPageToken: next, totalSize: all.length } };
  });
  const got: string[] = [];
  for await (const tp of stub.client.chataTemplates.listAll({ pageSize: 2, filterStates: ['APPROVED', 'REJECTED'] })) got.push(tp.id);
  assert.deepEqual(got, ['tpl-1', 'tpl-2', 'tpl-3', 'tpl-4', 'tpl-5']);
  assert.deepEqual(
    stub.seen.map((r) => r.query),
    [
      { pageSize: '2', filterStates: 'APPROVED,REJECTED' },
      { pageSize: '2', pageToken: '2', filterStates: 'APPROVED,REJECTED' },
      { pageSize: '2', pageToken: '4', filterStates: 'APPROVED,REJECTED' },
    ],
  );
  assert.ok(stub.seen.every((r) => r.path === `${P}/chata/templates` && r.method === 'GET'));
});

test('list pages: keyed items, totalSize kept, a missing nextPageToken read as ""', async (t) => {
  const stub = await startStub(t, (r) => (r.path.endsWith('/rcs/senders') ? { body: { senders: [{ id: 's1' }], totalSize: 1 } } : { body: {} }));
  assert.deepEqual(await stub.client.rcs.listPage({ pageToken: 'abc' }), { senders: [{ id: 's1' }], nextPageToken: '', totalSize: 1 });
  assert.deepEqual(stub.seen[0]!.query, { pageToken: 'abc' });
  assert.deepEqual(await stub.client.chatbSenders.listPage(), { senders: [], nextPageToken: '' });
  assert.deepEqual(await stub.client.chatbSenders.categories(), []);
});

test('a repeated page token stops the listing instead of looping', async (t) => {
  const stub = await startStub(t, () => ({ body: { senders: [{ id: 's1' }], nextPageToken: 'same' } }));
  await assert.rejects(async () => {
    for await (const _ of stub.client.chataSenders.listAll()) void _;
  }, /page token repeated/);
  assert.equal(stub.seen.length, 2);
});

test('invalid_input: code and every field error readable from the PlatformValidationError', async (t) => {
  const fieldErrors = [
    { field: 'category', description: 'must be one of AUTHENTICATION, MARKETING, UTILITY' },
    { field: 'components', description: 'a BODY component is required' },
  ];
  const stub = await startStub(t, () => invalid(fieldErrors));
  const err: unknown = await stub.client.chataTemplates.create({ name: 'x', language: 'en_US', category: 'UTILITY', components: [] }).catch((e: unknown) => e);
  assert.ok(err instanceof PlatformValidationError);
  assert.equal(err.httpStatus, 400);
  assert.equal(err.code, 'invalid_input');
  assert.equal(err.retryable, false);
  assert.deepEqual(err.details, { resolution: 'Fix the fields', validationErrors: fieldErrors });
  assert.deepEqual(provisioningErrorDetails(err), { resolution: 'Fix the fields', validationErrors: fieldErrors });
  assert.ok(isProvisioningError(err, 'invalid_input'));
  assert.match(err.message, /provisioning 400 invalid_input/);
  assert.equal(isProvisioningError(err, 'template_not_updatable'), false);
});

test('named 400 codes come through as PlatformValidationError with their code and additionalInformation', async (t) => {
  const named: Record<string, Answer> = {
    [`${P}/rcs/senders`]: {
      status: 400,
      body: {
        errorCode: 'file_has_wrong_dimensions',
        message: 'banner',
        resolution: 'resize',
        additionalInformation: { requiredWidth: 1440, requiredHeight: 448 },
      },
    },
    [`${P}/rcs/senders/s1/testNumbers`]: {
      status: 400,
      body: { errorCode: 'add_test_number_not_allowed_before_launch', message: 'launch first', resolution: 'wait' },
    },
    [`${P}/rcs/senders/s1:launch`]: { status: 400, body: { errorCode: 'questionnaire_incomplete', message: 'answers missing', resolution: 'answer' } },
    [`${P}/chatb/templates/t1:submit`]: { status: 400, body: { errorCode: 'template_not_updatable', message: 'not a draft', resolution: 'none' } },
  };
  const stub = await startStub(t, (r) => named[r.path] ?? {});
  const c = stub.client;
  const cases: Array<[() => Promise<unknown>, string]> = [
    [
      () =>
        c.rcs.create({
          displayName: 'A',
          description: '',
          websites: [],
          brandPhoneNumber: '1',
          banner: { url: 'u', width: 100, height: 100 },
          useCase: 'OTP',
          countries: ['FR'],
        }),
      'file_has_wrong_dimensions',
    ],
    [() => c.rcs.addTestNumber('s1', { phoneNumber: '+33611111111' }), 'add_test_number_not_allowed_before_launch'],
    [() => c.rcs.launch('s1', { email: 'a@b.test' }), 'questionnaire_incomplete'],
    [() => c.chatbTemplates.submit('t1'), 'template_not_updatable'],
  ];
  const errors: unknown[] = [];
  for (const [call, code] of cases) {
    const err = await call().then(
      () => assert.fail(`${code}: expected a rejection`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof PlatformValidationError, code);
    assert.equal(err.code, code);
    assert.ok(isProvisioningError(err, code));
    errors.push(err);
  }
  assert.deepEqual(provisioningErrorDetails(errors[0]).additionalInformation, { requiredWidth: 1440, requiredHeight: 448 });
  assert.deepEqual(provisioningErrorDetails(errors[1]), { resolution: 'wait' });
});

test('other statuses: 403, 404, 409, 429 with Retry-After, 503', async (t) => {
  const byPath: Record<string, Answer> = {
    [`${P}/rcs/senders/forbidden`]: { status: 403, body: { errorCode: 'forbidden', message: 'not your project', resolution: '' } },
    [`${P}/rcs/senders/missing`]: { status: 404, body: { errorCode: 'not_found', message: 'no sender', resolution: '' } },
    [`${P}/webhooks`]: { status: 409, body: { errorCode: 'conflict', message: 'target taken', resolution: '' } },
    [`${P}/chata/senders/busy`]: { status: 429, headers: { 'retry-after': '3' }, body: { errorCode: 'rate_limited', message: 'slow down', resolution: '' } },
    [`${P}/chatb/senders/down`]: { status: 503, body: { errorCode: 'unavailable', message: 'later', resolution: '' } },
  };
  const stub = await startStub(t, (r) => byPath[r.path] ?? {});
  const c = stub.client;
  await assert.rejects(c.rcs.get('forbidden'), (e: unknown) => e instanceof PlatformAuthError && e.code === 'forbidden');
  await assert.rejects(c.rcs.get('missing'), (e: unknown) => e instanceof PlatformNotFoundError && e.code === 'not_found');
  await assert.rejects(
    c.webhooks.create({ target: 'https://x.test', secret: '12345678', triggers: [] }),
    (e: unknown) => e instanceof PlatformConflictError && e.code === 'conflict',
  );
  await assert.rejects(c.chataSenders.get('busy'), (e: unknown) => e instanceof PlatformRateLimitError && e.retryAfterMs === 3000 && e.retryable);
  await assert.rejects(c.chatbSenders.get('down'), (e: unknown) => e instanceof PlatformUnavailableError && e.code === 'unavailable' && e.retryable);
});

test('a 401 for an expired token fetches a new one and repeats the request once', async (t) => {
  const stub = await startStub(t, (r) =>
    r.authorization === 'Bearer tok-1'
      ? { status: 401, body: { errorCode: 'unauthenticated', message: 'expired', resolution: '' } }
      : { body: { webhooks: [] } },
  );
  assert.deepEqual(await stub.client.webhooks.list(), []);
  assert.deepEqual(
    stub.seen.map((r) => r.authorization),
    ['Bearer tok-1', 'Bearer tok-2'],
  );
  assert.equal(stub.tokenFetches(), 2);
});

test('trigger names: the contract lists, and the guard', () => {
  assert.equal(PROVISIONING_TRIGGERS.length, 25);
  assert.equal(new Set(PROVISIONING_TRIGGERS).size, 25);
  assert.ok(isProvisioningTrigger('RCS_SENDER_OPERATOR_STATUS_UPDATED'));
  assert.ok(isProvisioningTrigger('CHATB_TEMPLATE_APPROVED'));
  assert.ok(!isProvisioningTrigger('BATCH_STATUS_UPDATE'));
  assert.ok(!isProvisioningTrigger(42));
});

test('sender and template deletes against the sandbox: not launched or active is deleted, launched or active is a 409', async (t) => {
  const sb = await createSandbox({
    provisioningReviewer: { rcs: { delayMs: 20 }, chataSenders: { delayMs: 20 }, chatbSenders: { delayMs: 20 }, templates: { delayMs: 20 } },
  });
  t.after(() => sb.close());
  await sb.listen();
  const c = sandboxClients(sb).provisioning;
  const until = async <T extends { state: string }>(read: () => Promise<T>, state: string) => {
    for (let i = 0; i < 200; i++, await new Promise((r) => setTimeout(r, 10))) if ((await read()).state === state) return;
    assert.fail(`never ${state}`);
  };
  const conflict = (e: unknown) => e instanceof PlatformConflictError && isProvisioningError(e, 'conflict');

  // CHATA: DELETED stays readable and a second delete answers it again; ACTIVE is refused.
  const draftA = await c.chataSenders.create({ phoneNumber: '+15550001111', displayName: 'Acme', status: 'DRAFT' });
  assert.equal((await c.chataSenders.delete(draftA.id))?.state, 'DELETED');
  assert.equal((await c.chataSenders.get(draftA.id)).state, 'DELETED');
  assert.equal((await c.chataSenders.delete(draftA.id))?.state, 'DELETED');
  const activeA = await c.chataSenders.create({ phoneNumber: '+15550002222', displayName: 'Acme' });
  await until(() => c.chataSenders.get(activeA.id), 'ACTIVE');
  await assert.rejects(c.chataSenders.delete(activeA.id), conflict);

  // CHATB and RCS have no DELETED state: the sender is gone (404 after).
  const draftB = await c.chatbSenders.create({ displayName: 'Acme', categoryCode: 'RETAIL', status: 'DRAFT' });
  await c.chatbSenders.delete(draftB.id);
  await assert.rejects(c.chatbSenders.get(draftB.id), PlatformNotFoundError);
  await assert.rejects(c.chatbSenders.delete(draftB.id), PlatformNotFoundError);
  const activeB = await c.chatbSenders.create({ displayName: 'Beta', categoryCode: 'RETAIL' });
  await until(() => c.chatbSenders.get(activeB.id), 'ACTIVE');
  await assert.rejects(c.chatbSenders.delete(activeB.id), conflict);

  const rcs = rcsSenderFields('Acme', { description: 'Acme agent', brandPhoneNumber: '+4470000000', countries: ['GB'] });
  const draftR = await c.rcs.create(rcs);
  await c.rcs.delete(draftR.id);
  await assert.rejects(c.rcs.get(draftR.id), PlatformNotFoundError);
  await assert.rejects(c.rcs.delete(draftR.id), PlatformNotFoundError);
  const launched = await c.rcs.create(rcs);
  await c.rcs.answerQuestionnaire(launched.id, { brand_description: 'Shop', message_types: 'Orders', opt_in: 'Checkout', opt_out: 'STOP' });
  await c.rcs.launch(launched.id, { email: 'ops@acme.test' });
  await until(() => c.rcs.get(launched.id), 'LAUNCHED');
  await assert.rejects(c.rcs.delete(launched.id), (e: unknown) => conflict(e) && provisioningErrorDetails(e).additionalInformation?.state === 'LAUNCHED');

  const tpl = await c.chatbTemplates.create({
    name: 'hello',
    language: 'en_US',
    category: 'UTILITY',
    status: 'DRAFT',
    components: [{ type: 'BODY', text: 'Hi' }],
  });
  assert.equal((await c.chatbTemplates.delete(tpl.id))?.state, 'DELETED');
});
