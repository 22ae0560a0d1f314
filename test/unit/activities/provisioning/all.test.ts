import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import type { PlatformConfig } from '../../../../common/config.js';
import { createActivities } from '../../../../activities/index.js';
import { createPlatformClients } from '../../../../platform/index.js';
import { OAuthTokenRegistry } from '../../../../platform/auth/oauth.js';
import type { PlatformFailureDetails } from '../../../../activities/shared/failures.js';

type Obj = Record<string, unknown>;

interface StubOptions {
  /** `METHOD path-after-project` (e.g. `POST chata/templates`): act, then drop the connection, once each. */
  loseAnswer?: string[];
  /** Runs before a POST to this collection is handled (simulates a concurrent creator). */
  beforeCreate?: Partial<Record<string, () => void>>;
}

/**
 * An in-memory emulation of the provisioning contract (docs/provisioning-wire.md) for project `proj-1`,
 * 2 items per page whatever pageSize asks, with the token service. Records every request.
 */
async function startStub(t: TestContext, opts: StubOptions = {}) {
  const lose = new Set(opts.loseAnswer ?? []);
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}-${++ids}`;
  const store = {
    templates: { chata: [] as Obj[], chatb: [] as Obj[] },
    rcs: [] as Obj[],
    chata: [] as Obj[],
    chatb: [] as Obj[],
    webhooks: [] as Obj[],
    answers: new Map<string, Record<string, string>>(),
  };
  const seen: Array<{ method: string; path: string; query: Record<string, string>; authorization: string | undefined; body: unknown }> = [];

  const send = (res: ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, errorCode: string, extra: Obj = {}) =>
    send(res, status, { errorCode, message: errorCode.replace(/_/g, ' '), resolution: 'see the documentation', ...extra });
  const invalid = (res: ServerResponse, validationErrors: Array<{ field: string; description: string }>) => fail(res, 400, 'invalid_input', { validationErrors });
  const page = (res: ServerResponse, key: string, items: Obj[], q: URLSearchParams) => {
    const size = Math.min(Number(q.get('pageSize') ?? 2), 2);
    const start = Number(q.get('pageToken') || 0);
    const next = start + size < items.length ? String(start + size) : '';
    send(res, 200, { [key]: items.slice(start, start + size), nextPageToken: next, totalSize: items.length });
  };

  /** Returns the answer [status, body], or an error already sent. */
  const route = (req: IncomingMessage, path: string, q: URLSearchParams, body: Obj, res: ServerResponse): [number, unknown] | undefined => {
    const m = req.method!;
    let g: RegExpExecArray | null;
    // --- webhooks
    if (path === 'webhooks' && m === 'GET') return [200, { webhooks: store.webhooks.map(({ secret: _s, ...w }) => w) }];
    if (path === 'webhooks' && m === 'POST') {
      if (store.webhooks.length >= 15) return void invalid(res, [{ field: 'webhooks', description: 'at most 15 webhooks per project' }]);
      if (store.webhooks.some((w) => w.target === body.target)) return void fail(res, 409, 'conflict');
      const w = { id: nextId('wh'), target: body.target, triggers: body.triggers, secret: body.secret };
      store.webhooks.push(w);
      return [200, { id: w.id, target: w.target, triggers: w.triggers }];
    }
    if ((g = /^webhooks\/([^/]+)$/.exec(path)) && m === 'DELETE') {
      const i = store.webhooks.findIndex((w) => w.id === g![1]);
      if (i < 0) return void fail(res, 404, 'not_found');
      store.webhooks.splice(i, 1);
      return [200, {}];
    }
    // --- templates
    if ((g = /^(chata|chatb)\/templates(?:\/([^/:]+))?(:submit)?$/.exec(path))) {
      const list = store.templates[g[1] as 'chata' | 'chatb'];
      const id = g[2];
      if (id === undefined && m === 'GET') return void page(res, 'templates', list, q);
      if (id === undefined && m === 'POST') {
        opts.beforeCreate?.[`${g[1]}/templates`]?.();
        if (list.some((x) => x.name === body.name && x.language === body.language && x.state !== 'DELETED')) return void fail(res, 409, 'conflict');
        if (!['AUTHENTICATION', 'MARKETING', 'UTILITY'].includes(body.category as string)) {
          return void invalid(res, [{ field: 'category', description: 'must be one of AUTHENTICATION, MARKETING, UTILITY' }]);
        }
        const tpl = { id: nextId('tpl'), name: body.name, language: body.language, category: body.category, state: body.status === 'DRAFT' ? 'DRAFT' : 'IN_PROGRESS', allowCategoryChange: body.allowCategoryChange ?? false, components: body.components, comments: [], version: 1, updateTime: '2025-06-01T00:00:00Z' };
        list.push(tpl);
        return [200, tpl];
      }
      const tpl = list.find((x) => x.id === id);
      if (!tpl) return void fail(res, 404, 'not_found');
      if (g[3] && m === 'POST') {
        if (tpl.state !== 'DRAFT') return void fail(res, 400, 'template_not_updatable');
        tpl.state = 'IN_PROGRESS';
        return [200, tpl];
      }
      if (m === 'GET') return [200, tpl];
      if (m === 'PATCH') {
        if (!['REJECTED', 'APPROVED', 'PAUSED', 'DISABLED'].includes(tpl.state as string)) return void fail(res, 400, 'template_not_updatable');
        for (const k of ['category', 'components', 'allowCategoryChange'] as const) if (body[k] !== undefined) tpl[k] = body[k];
        if (body.status !== 'DRAFT') {
          tpl.state = 'IN_PROGRESS';
          tpl.version = (tpl.version as number) + 1;
        }
        return [200, tpl];
      }
      if (m === 'DELETE') {
        if (tpl.state === 'DELETED') return void fail(res, 400, 'template_not_updatable');
        tpl.state = 'DELETED';
        return [200, tpl];
      }
    }
    // --- RCS
    if ((g = /^rcs\/questionnaire\/([^/]+)$/.exec(path)) && m === 'GET') {
      if (!['MULTIUSE', 'TRANSACTIONAL', 'PROMOTIONAL', 'OTP'].includes(g[1]!)) return void invalid(res, [{ field: 'useCase', description: 'must be one of MULTIUSE, TRANSACTIONAL, PROMOTIONAL, OTP' }]);
      const countries = (q.get('countries') ?? '').split(',').filter(Boolean);
      const questions = [{ id: 'brand_description', text: 'Describe the brand', required: true }, ...(countries.includes('FR') ? [{ id: 'siren', text: 'SIREN', required: true, country: 'FR' }] : [])];
      return [200, { useCase: g[1], questions }];
    }
    if (path === 'rcs/senders' && m === 'GET') return void page(res, 'senders', store.rcs, q);
    if (path === 'rcs/senders' && m === 'POST') {
      const banner = body.banner as { width: number; height: number };
      if (banner.width !== 1440 || banner.height !== 448) return void fail(res, 400, 'file_has_wrong_dimensions', { additionalInformation: { requiredWidth: 1440, requiredHeight: 448 } });
      const s = { id: nextId('rcs'), agentId: nextId('agent'), displayName: body.displayName, state: 'DRAFT', countryStatus: Object.fromEntries((body.countries as string[]).map((c) => [c, { status: 'NOT_LAUNCHED', operators: {} }])), comments: [], testNumbers: [] as Obj[] };
      store.rcs.push(s);
      return [200, s];
    }
    if ((g = /^rcs\/senders\/([^/:]+)(:launch|:relaunch|\/questionnaire|\/testNumbers)?$/.exec(path))) {
      const s = store.rcs.find((x) => x.id === g![1]);
      if (!s) return void fail(res, 404, 'not_found');
      const countries = s.countryStatus as Record<string, { status: string }>;
      if (!g[2] && m === 'GET') return [200, s];
      if (g[2] === '/questionnaire' && m === 'PUT') {
        const answers = (body.answers ?? {}) as Record<string, string>;
        const missing = ['brand_description', ...('FR' in countries ? ['siren'] : [])].filter((id) => !answers[id]);
        if (missing.length) return void invalid(res, missing.map((id) => ({ field: `answers.${id}`, description: 'required' })));
        store.answers.set(s.id as string, answers);
        return [200, { answers }];
      }
      if (g[2] === ':launch' && m === 'POST') {
        if (!store.answers.has(s.id as string)) return void fail(res, 400, 'questionnaire_incomplete');
        if (s.state !== 'DRAFT') return void fail(res, 400, 'invalid_input', { validationErrors: [{ field: 'state', description: 'already launched' }] });
        s.state = 'IN_REVIEW';
        for (const c of Object.values(countries)) c.status = 'PENDING';
        return [200, s];
      }
      if (g[2] === ':relaunch' && m === 'POST') {
        const relaunchable = s.state === 'REJECTED' || (s.state === 'PARTIALLY_LAUNCHED' && Object.values(countries).some((c) => c.status === 'REJECTED'));
        if (!relaunchable) return void fail(res, 409, 'conflict');
        s.state = 'IN_REVIEW';
        for (const c of Object.values(countries)) c.status = 'PENDING';
        return [200, s];
      }
      if (g[2] === '/testNumbers' && m === 'POST') {
        if (s.state === 'DRAFT') return void fail(res, 400, 'add_test_number_not_allowed_before_launch');
        (s.testNumbers as Obj[]).push({ phoneNumber: body.phoneNumber, features: body.features ?? [], state: 'PENDING' });
        return [200, { testNumbers: s.testNumbers }];
      }
    }
    // --- CHATA senders
    if (path === 'chata/senders' && m === 'GET') return void page(res, 'senders', store.chata, q);
    if ((path === 'chata/senders' || path === 'chata/senders:embedded') && m === 'POST') {
      const embedded = path.endsWith(':embedded');
      if (embedded && (!body.businessAccountId || !body.phoneNumberId)) return void invalid(res, [{ field: 'phoneNumberId', description: 'required' }]);
      const s = embedded
        ? { id: nextId('chata'), businessAccountId: body.businessAccountId, phoneNumberId: body.phoneNumberId, state: 'PENDING', compatibleRegions: ['EU'], comments: [] }
        : { id: nextId('chata'), phoneNumber: body.phoneNumber, displayName: body.displayName, state: 'PENDING', compatibleRegions: ['EU'], comments: [] };
      store.chata.push(s);
      return [200, s];
    }
    if ((g = /^chata\/senders\/([^/]+)$/.exec(path)) && m === 'GET') {
      const s = store.chata.find((x) => x.id === g![1]);
      return s ? [200, s] : void fail(res, 404, 'not_found');
    }
    // --- CHATB
    if (path === 'chatb/categories' && m === 'GET') {
      return [200, { categories: [{ code: 'RETAIL', name: 'Commerce', nameEnglish: 'Retail', subcategories: [{ code: 'FASHION', name: 'Mode', nameEnglish: 'Fashion' }] }] }];
    }
    if (path === 'chatb/senders' && m === 'GET') return void page(res, 'senders', store.chatb, q);
    if (path === 'chatb/senders' && m === 'POST') {
      if (body.categoryCode !== 'RETAIL') return void invalid(res, [{ field: 'categoryCode', description: 'unknown category code' }]);
      const s = { id: nextId('chatb'), displayName: body.displayName, categoryCode: body.categoryCode, state: body.status === 'DRAFT' ? 'DRAFT' : 'IN_REVIEW', comments: [] };
      store.chatb.push(s);
      return [200, s];
    }
    if ((g = /^chatb\/senders\/([^/]+)$/.exec(path)) && m === 'GET') {
      const s = store.chatb.find((x) => x.id === g![1]);
      return s ? [200, s] : void fail(res, 404, 'not_found');
    }
    return void fail(res, 404, 'not_found');
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://stub');
      if (url.pathname === '/auth/oauth2/token') return send(res, 200, { access_token: 'tok', expires_in: 3600 });
      const body = raw === '' ? {} : (JSON.parse(raw) as Obj);
      const pm = /^\/prov\/v1\/projects\/([^/]+)\/(.+)$/.exec(url.pathname);
      seen.push({ method: req.method!, path: pm?.[2] ?? url.pathname, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, body: raw === '' ? undefined : body });
      if (req.headers.authorization !== 'Bearer tok') return fail(res, 401, 'unauthenticated');
      if (!pm) return fail(res, 404, 'not_found');
      if (pm[1] !== 'proj-1') return fail(res, 403, 'forbidden');
      const answer = route(req, decodeURIComponent(pm[2]!), url.searchParams, body, res);
      if (!answer) return;
      const key = `${req.method} ${pm[2]}`;
      if (lose.delete(key)) return req.socket.destroy();
      send(res, answer[0], answer[1]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const regional = { us: base, eu: base, br: base };
  const config: PlatformConfig = {
    mode: 'sandbox',
    requestTimeoutMs: 2000,
    urls: { auth: `${base}/auth`, subprojects: base, verification: base, voice: base, voiceConfig: base, mms: base, senderId: base, provisioning: `${base}/prov`, conversation: regional, template: regional, batch: regional },
    credentials: { projectId: 'proj-1', keyId: 'k', keySecret: 's', appKey: 'a', appSecret: 'c2VjcmV0', mmsApiKey: 'm' },
  };
  const activities = createActivities({ clients: createPlatformClients(config, { tokenRegistry: new OAuthTokenRegistry() }) });
  /** Requests that change something (not GET). */
  const writes = () => seen.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  return { activities, store, seen, writes };
}

/** Asserts a mapped activity failure and returns its first details entry. */
async function failure(p: Promise<unknown>, type: string, nonRetryable: boolean): Promise<PlatformFailureDetails> {
  const err = await p.then(
    () => assert.fail(`expected ${type}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApplicationFailure, String(err));
  assert.equal(err.type, type);
  assert.equal(err.nonRetryable, nonRetryable);
  return err.details![0] as PlatformFailureDetails;
}

const tplInput = (name = 'order_update', language = 'en_US') => ({
  name,
  language,
  category: 'UTILITY' as const,
  components: [{ type: 'BODY' as const, text: 'Your order {{1}} shipped' }],
});
const addTemplate = (list: Obj[], n: number, extra: Obj = {}) =>
  list.push({ id: `old-${n}`, name: `other_${n}`, language: 'en_US', category: 'UTILITY', state: 'APPROVED', allowCategoryChange: false, components: [], comments: [], version: 1, updateTime: 'x', ...extra });

const rcsInput = (displayName = 'Acme', width = 1440) => ({
  displayName,
  description: 'Acme agent',
  websites: [{ url: 'https://acme.test' }],
  brandPhoneNumber: '+33612345678',
  banner: { url: 'https://acme.test/banner.png', width, height: 448 },
  useCase: 'MULTIUSE' as const,
  countries: ['FR'],
});

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

test('createTemplate: an existing template with that name and language on page 2 is returned, nothing is created', async (t) => {
  const stub = await startStub(t);
  const list = stub.store.templates.chata;
  addTemplate(list, 1);
  addTemplate(list, 2, { name: 'order_update', language: 'fr_FR' });
  addTemplate(list, 3, { name: 'order_update', state: 'REJECTED' });
  addTemplate(list, 4);
  const result = await stub.activities.createTemplate({ channel: 'CHATA', template: tplInput() });
  assert.equal(result.created, false);
  assert.equal(result.id, 'old-3');
  assert.equal(result.state, 'REJECTED');
  assert.deepEqual(stub.writes(), []);
  const lists = stub.seen.filter((r) => r.path === 'chata/templates');
  assert.deepEqual(lists.map((r) => r.query.pageToken), [undefined, '2']);
  assert.ok(lists.every((r) => r.query.pageSize === '1000' && r.authorization === 'Bearer tok'));
});

test('createTemplate: creates exactly once when no live template matches (a DELETED one does not count)', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chatb, 1, { name: 'order_update', state: 'DELETED' });
  addTemplate(stub.store.templates.chatb, 2);
  addTemplate(stub.store.templates.chatb, 3);
  const result = await stub.activities.createTemplate({ channel: 'CHATB', template: tplInput() });
  assert.equal(result.created, true);
  assert.equal(result.state, 'IN_PROGRESS');
  assert.deepEqual(stub.writes(), ['POST chatb/templates']);
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, tplInput());
  assert.deepEqual(stub.store.templates.chata, []);
});

test('createTemplate retried after a lost answer finds the template instead of creating a second', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/templates'] });
  const input = { channel: 'CHATA' as const, template: tplInput() };
  await failure(stub.activities.createTemplate(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createTemplate(input);
  assert.equal(retried.created, false);
  assert.equal(retried.id, stub.store.templates.chata[0]!.id);
  assert.equal(stub.store.templates.chata.length, 1);
  assert.deepEqual(stub.writes(), ['POST chata/templates']);
});

test('createTemplate: a 409 from a concurrent creator is answered with that template', async (t) => {
  const stub = await startStub(t, { beforeCreate: { 'chata/templates': () => addTemplate(stub.store.templates.chata, 9, { name: 'order_update' }) } });
  const result = await stub.activities.createTemplate({ channel: 'CHATA', template: tplInput() });
  assert.deepEqual([result.created, result.id], [false, 'old-9']);
  assert.equal(stub.store.templates.chata.length, 1);
});

test('createTemplate: invalid_input is non-retryable and carries each field error', async (t) => {
  const stub = await startStub(t);
  const details = await failure(
    stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput(), category: 'PROMO' as 'UTILITY' } }),
    'PlatformValidationError',
    true,
  );
  assert.equal(details.httpStatus, 400);
  assert.equal(details.code, 'invalid_input');
  assert.deepEqual((details.details as Obj).validationErrors, [{ field: 'category', description: 'must be one of AUTHENTICATION, MARKETING, UTILITY' }]);
});

test('submitTemplate: submits a draft once; a retry after a lost answer reports submitted:false', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/templates/tpl-1:submit'] });
  const created = await stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput(), status: 'DRAFT' } });
  assert.equal(created.state, 'DRAFT');
  const ref = { channel: 'CHATA' as const, templateId: created.id };
  await failure(stub.activities.submitTemplate(ref), 'PlatformUnavailableError', false);
  const retried = await stub.activities.submitTemplate(ref);
  assert.deepEqual([retried.submitted, retried.state], [false, 'IN_PROGRESS']);

  const other = await stub.activities.createTemplate({ channel: 'CHATA', template: { ...tplInput('second'), status: 'DRAFT' } });
  const submitted = await stub.activities.submitTemplate({ channel: 'CHATA', templateId: other.id });
  assert.deepEqual([submitted.submitted, submitted.state], [true, 'IN_PROGRESS']);
});

test('submitTemplate: a DELETED template stays a non-retryable template_not_updatable', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chata, 1, { state: 'DELETED' });
  const details = await failure(stub.activities.submitTemplate({ channel: 'CHATA', templateId: 'old-1' }), 'PlatformValidationError', true);
  assert.equal(details.code, 'template_not_updatable');
});

test('editTemplate: edits and resubmits; a retry after a lost answer is recognised with and without baseVersion', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['PATCH chata/templates/old-1', 'PATCH chata/templates/old-2'] });
  addTemplate(stub.store.templates.chata, 1, { state: 'REJECTED' });
  addTemplate(stub.store.templates.chata, 2, { state: 'REJECTED' });
  const changes = { components: [{ type: 'BODY' as const, text: 'Fixed {{1}}' }], category: 'MARKETING' as const };

  // Without baseVersion: the retry's PATCH is refused, and the template already holds the changes.
  await failure(stub.activities.editTemplate({ channel: 'CHATA', templateId: 'old-1', changes }), 'PlatformUnavailableError', false);
  const retried = await stub.activities.editTemplate({ channel: 'CHATA', templateId: 'old-1', changes });
  assert.deepEqual([retried.edited, retried.state, retried.version], [false, 'IN_PROGRESS', 2]);

  // With baseVersion: the retry reads the template first and sends no second PATCH.
  const input = { channel: 'CHATA' as const, templateId: 'old-2', changes, baseVersion: 1 };
  await failure(stub.activities.editTemplate(input), 'PlatformUnavailableError', false);
  const patchesBefore = stub.writes().length;
  const again = await stub.activities.editTemplate(input);
  assert.deepEqual([again.edited, again.version], [false, 2]);
  assert.equal(stub.writes().length, patchesBefore);
  assert.deepEqual(stub.writes(), ['PATCH chata/templates/old-1', 'PATCH chata/templates/old-1', 'PATCH chata/templates/old-2']);
});

test('editTemplate: edits an APPROVED template (edited:true); other changes to an IN_PROGRESS one fail non-retryably', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chatb, 1, { state: 'APPROVED' });
  const edited = await stub.activities.editTemplate({ channel: 'CHATB', templateId: 'old-1', changes: { allowCategoryChange: true } });
  assert.deepEqual([edited.edited, edited.state, edited.version, edited.allowCategoryChange], [true, 'IN_PROGRESS', 2, true]);
  const details = await failure(
    stub.activities.editTemplate({ channel: 'CHATB', templateId: 'old-1', changes: { allowCategoryChange: false } }),
    'PlatformValidationError',
    true,
  );
  assert.equal(details.code, 'template_not_updatable');
});

test('getTemplate and deleteTemplate: delete once, then deleted:false; unknown template 404 → deleted:false', async (t) => {
  const stub = await startStub(t);
  addTemplate(stub.store.templates.chata, 1);
  const ref = { channel: 'CHATA' as const, templateId: 'old-1' };
  assert.equal((await stub.activities.getTemplate(ref)).state, 'APPROVED');
  assert.deepEqual(await stub.activities.deleteTemplate(ref), { templateId: 'old-1', deleted: true });
  assert.equal((await stub.activities.getTemplate(ref)).state, 'DELETED');
  assert.deepEqual(await stub.activities.deleteTemplate(ref), { templateId: 'old-1', deleted: false });
  assert.deepEqual(await stub.activities.deleteTemplate({ channel: 'CHATA', templateId: 'nope' }), { templateId: 'nope', deleted: false });
  await failure(stub.activities.getTemplate({ channel: 'CHATA', templateId: 'nope' }), 'PlatformNotFoundError', true);
});

// ---------------------------------------------------------------------------------------------
// RCS
// ---------------------------------------------------------------------------------------------

test('createRcsSender: found by displayName on page 2 without a POST; otherwise one POST; a lost answer creates once', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders'] });
  stub.store.rcs.push({ id: 'r1', displayName: 'One' }, { id: 'r2', displayName: 'Two' }, { id: 'r3', displayName: 'Acme', state: 'LAUNCHED' });
  const found = await stub.activities.createRcsSender(rcsInput());
  assert.deepEqual([found.created, found.id], [false, 'r3']);
  assert.deepEqual(stub.writes(), []);

  await failure(stub.activities.createRcsSender(rcsInput('Beta')), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createRcsSender(rcsInput('Beta'));
  assert.equal(retried.created, false);
  assert.equal(stub.store.rcs.filter((s) => s.displayName === 'Beta').length, 1);

  const fresh = await stub.activities.createRcsSender(rcsInput('Gamma'));
  assert.deepEqual([fresh.created, fresh.state], [true, 'DRAFT']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders', 'POST rcs/senders']);
  assert.deepEqual(stub.seen.filter((r) => r.method === 'POST').at(-1)!.body, rcsInput('Gamma'));
});

test('createRcsSender: a banner with the wrong dimensions fails non-retryably with the required size', async (t) => {
  const stub = await startStub(t);
  const details = await failure(stub.activities.createRcsSender(rcsInput('Acme', 1000)), 'PlatformValidationError', true);
  assert.equal(details.code, 'file_has_wrong_dimensions');
  assert.deepEqual((details.details as Obj).additionalInformation, { requiredWidth: 1440, requiredHeight: 448 });
});

test('RCS launch path: questionnaire, launch once, test numbers only after the launch, relaunch after a rejection', async (t) => {
  const stub = await startStub(t);
  const sender = await stub.activities.createRcsSender(rcsInput());
  const senderId = sender.id;
  const contact = { email: 'ops@acme.test' };

  // Test number before the launch: reported, not thrown.
  assert.deepEqual(await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '+33611111111' }), { added: false, reason: 'not_allowed_before_launch' });

  // Launch before answering: questionnaire_incomplete, non-retryable.
  const incomplete = await failure(stub.activities.launchRcsSender({ senderId, contact }), 'PlatformValidationError', true);
  assert.equal(incomplete.code, 'questionnaire_incomplete');

  // Missing answers name each question.
  const missing = await failure(stub.activities.answerRcsQuestionnaire({ senderId, answers: {} }), 'PlatformValidationError', true);
  assert.deepEqual(((missing.details as Obj).validationErrors as Array<{ field: string }>).map((e) => e.field), ['answers.brand_description', 'answers.siren']);
  assert.deepEqual(await stub.activities.answerRcsQuestionnaire({ senderId, answers: { brand_description: 'Shoes', siren: '123456789' } }), {
    senderId,
    answeredQuestionIds: ['brand_description', 'siren'],
  });

  const launched = await stub.activities.launchRcsSender({ senderId, contact });
  assert.deepEqual([launched.launched, launched.state, launched.countryStatus.FR!.status], [true, 'IN_REVIEW', 'PENDING']);
  const again = await stub.activities.launchRcsSender({ senderId, contact });
  assert.deepEqual([again.launched, again.state], [false, 'IN_REVIEW']);
  assert.deepEqual(stub.writes().filter((w) => w.endsWith(':launch')), [`POST rcs/senders/${senderId}:launch`, `POST rcs/senders/${senderId}:launch`]);
  assert.equal(stub.seen.filter((r) => r.path.endsWith(':launch')).length, 2, 'the second launch call sent nothing');

  const added = await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'] });
  assert.deepEqual(added, { added: true, testNumbers: [{ phoneNumber: '+33611111111', features: ['ACTION_COMPOSE'], state: 'PENDING' }] });
  const repeated = await stub.activities.addRcsTestNumber({ senderId, phoneNumber: '33 6 11 11 11 11' });
  assert.equal(repeated.added, true);
  assert.equal((stub.store.rcs[0]!.testNumbers as Obj[]).length, 1, 'the same number is not added twice');

  // Nothing rejected: relaunch sends nothing.
  const notNeeded = await stub.activities.relaunchRcsSender({ senderId, contact });
  assert.equal(notNeeded.relaunched, false);
  assert.equal(stub.seen.filter((r) => r.path.endsWith(':relaunch')).length, 0);
  (stub.store.rcs[0]!.countryStatus as Record<string, Obj>).FR!.status = 'REJECTED';
  stub.store.rcs[0]!.state = 'REJECTED';
  const relaunched = await stub.activities.relaunchRcsSender({ senderId, contact: { phoneNumber: '+33600000000' } });
  assert.deepEqual([relaunched.relaunched, relaunched.state], [true, 'IN_REVIEW']);
  assert.deepEqual(stub.seen.find((r) => r.path.endsWith(':relaunch'))!.body, { contact: { phoneNumber: '+33600000000' } });
  assert.equal((await stub.activities.relaunchRcsSender({ senderId, contact })).relaunched, false);

  assert.equal((await stub.activities.getRcsSender({ senderId })).state, 'IN_REVIEW');
});

test('launchRcsSender retried after a lost answer does not launch twice', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders/r1:launch'] });
  stub.store.rcs.push({ id: 'r1', displayName: 'Acme', state: 'DRAFT', countryStatus: { FR: { status: 'NOT_LAUNCHED', operators: {} } }, comments: [], testNumbers: [] });
  stub.store.answers.set('r1', { brand_description: 'x', siren: '1' });
  const input = { senderId: 'r1', contact: { email: 'ops@acme.test' } };
  await failure(stub.activities.launchRcsSender(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.launchRcsSender(input);
  assert.deepEqual([retried.launched, retried.state], [false, 'IN_REVIEW']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1:launch']);
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, { contact: { email: 'ops@acme.test' } });
});

test('relaunchRcsSender: a REJECTED country of a PARTIALLY_LAUNCHED sender is relaunched; nothing is sent while IN_REVIEW', async (t) => {
  const stub = await startStub(t);
  const countryStatus = { FR: { status: 'LAUNCHED', operators: {} }, US: { status: 'REJECTED', operators: {} } };
  stub.store.rcs.push(
    { id: 'r1', displayName: 'A', state: 'PARTIALLY_LAUNCHED', countryStatus, comments: [], testNumbers: [] },
    { id: 'r2', displayName: 'B', state: 'IN_REVIEW', countryStatus: structuredClone(countryStatus), comments: [], testNumbers: [] },
  );
  const contact = { email: 'ops@acme.test' };
  const partial = await stub.activities.relaunchRcsSender({ senderId: 'r1', contact });
  assert.deepEqual([partial.relaunched, partial.state], [true, 'IN_REVIEW']);
  const inReview = await stub.activities.relaunchRcsSender({ senderId: 'r2', contact });
  assert.deepEqual([inReview.relaunched, inReview.state], [false, 'IN_REVIEW']);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1:relaunch']);
});

test('addRcsTestNumber retried after a lost answer adds the number once', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST rcs/senders/r1/testNumbers'] });
  stub.store.rcs.push({ id: 'r1', displayName: 'Acme', state: 'LAUNCHED', countryStatus: {}, comments: [], testNumbers: [] });
  await failure(stub.activities.addRcsTestNumber({ senderId: 'r1', phoneNumber: '+33611111111' }), 'PlatformUnavailableError', false);
  const retried = await stub.activities.addRcsTestNumber({ senderId: 'r1', phoneNumber: '+33611111111' });
  assert.equal(retried.added, true);
  assert.equal((stub.store.rcs[0]!.testNumbers as Obj[]).length, 1);
  assert.deepEqual(stub.writes(), ['POST rcs/senders/r1/testNumbers']);
});

test('getRcsQuestionnaire: country questions for the countries asked; a wrong use case is non-retryable', async (t) => {
  const stub = await startStub(t);
  const q = await stub.activities.getRcsQuestionnaire({ useCase: 'MULTIUSE', countries: ['FR', 'US'] });
  assert.deepEqual(q.questions.map((x) => [x.id, x.required]), [['brand_description', true], ['siren', true]]);
  assert.deepEqual([stub.seen.at(-1)!.path, stub.seen.at(-1)!.query], ['rcs/questionnaire/MULTIUSE', { countries: 'FR,US' }]);
  assert.deepEqual((await stub.activities.getRcsQuestionnaire({ useCase: 'OTP' })).questions.map((x) => x.id), ['brand_description']);
  const details = await failure(stub.activities.getRcsQuestionnaire({ useCase: 'MULTI_USE' as 'MULTIUSE' }), 'PlatformValidationError', true);
  assert.match(((details.details as Obj).validationErrors as Array<{ description: string }>)[0]!.description, /MULTIUSE/);
});

// ---------------------------------------------------------------------------------------------
// CHATA / CHATB senders
// ---------------------------------------------------------------------------------------------

test('createChataSender: found by phone number (any formatting) on page 2; a DELETED one does not count', async (t) => {
  const stub = await startStub(t);
  stub.store.chata.push(
    { id: 'c1', phoneNumber: '+15550000001', state: 'ACTIVE' },
    { id: 'c2', phoneNumber: '+1 555 000 1111', state: 'DELETED' },
    { id: 'c3', phoneNumber: '+1 (555) 000-1111', state: 'PENDING' },
  );
  const input = { phoneNumber: '+15550001111', displayName: 'Acme' };
  const found = await stub.activities.createChataSender(input);
  assert.deepEqual([found.created, found.id], [false, 'c3']);
  assert.deepEqual(stub.writes(), []);
  assert.equal(stub.seen.filter((r) => r.path === 'chata/senders').length, 2);

  stub.store.chata.splice(2, 1);
  const created = await stub.activities.createChataSender(input);
  assert.deepEqual([created.created, created.state], [true, 'PENDING']);
  assert.deepEqual(stub.writes(), ['POST chata/senders']);
  assert.deepEqual(stub.seen.at(-1)!.body, input);
});

test('createChataSender: a lost answer creates once, for normal and embedded creation', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chata/senders', 'POST chata/senders:embedded'] });
  const normal = { phoneNumber: '+15550001111', displayName: 'Acme', status: 'SUBMIT' as const };
  await failure(stub.activities.createChataSender(normal), 'PlatformUnavailableError', false);
  assert.equal((await stub.activities.createChataSender(normal)).created, false);

  const embedded = { businessAccountId: 'waba-1', phoneNumberId: 'pn-1', phoneNumber: '+15550002222' };
  await failure(stub.activities.createChataSender(embedded), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createChataSender(embedded);
  assert.deepEqual([retried.created, retried.phoneNumberId], [false, 'pn-1']);
  assert.equal(stub.store.chata.length, 2);
  assert.deepEqual(stub.writes(), ['POST chata/senders', 'POST chata/senders:embedded']);
  // Only the contract's two fields go to the embedded endpoint.
  assert.deepEqual(stub.seen.find((r) => r.path === 'chata/senders:embedded')!.body, { businessAccountId: 'waba-1', phoneNumberId: 'pn-1' });
  assert.equal((await stub.activities.getChataSender({ senderId: retried.id })).id, retried.id);
});

test('CHATB: categories, create once by displayName (found on page 2, lost answer), unknown category non-retryable', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST chatb/senders'] });
  const categories = await stub.activities.listChatbCategories();
  assert.deepEqual(categories.map((c) => [c.code, c.subcategories.map((s) => s.code)]), [['RETAIL', ['FASHION']]]);

  stub.store.chatb.push({ id: 'b1', displayName: 'One', state: 'ACTIVE' }, { id: 'b2', displayName: 'Two', state: 'ACTIVE' }, { id: 'b3', displayName: 'Acme', state: 'REJECTED' });
  const found = await stub.activities.createChatbSender({ displayName: 'Acme', categoryCode: 'RETAIL' });
  assert.deepEqual([found.created, found.id, found.state], [false, 'b3', 'REJECTED']);
  assert.deepEqual(stub.writes(), []);

  const input = { displayName: 'Beta', categoryCode: 'RETAIL', subcategoryCode: 'FASHION' };
  await failure(stub.activities.createChatbSender(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.createChatbSender(input);
  assert.equal(retried.created, false);
  assert.equal(stub.store.chatb.filter((s) => s.displayName === 'Beta').length, 1);
  assert.equal((await stub.activities.getChatbSender({ senderId: retried.id })).displayName, 'Beta');

  const details = await failure(stub.activities.createChatbSender({ displayName: 'Gamma', categoryCode: 'NOPE' }), 'PlatformValidationError', true);
  assert.deepEqual((details.details as Obj).validationErrors, [{ field: 'categoryCode', description: 'unknown category code' }]);
  await failure(stub.activities.getChatbSender({ senderId: 'nope' }), 'PlatformNotFoundError', true);
});

// ---------------------------------------------------------------------------------------------
// Webhooks
// ---------------------------------------------------------------------------------------------

test('ensureWebhook: creates once, then returns the webhook with that target; the 15-limit error propagates', async (t) => {
  const stub = await startStub(t);
  const input = { target: 'https://relayflow.test/hooks/provisioning', secret: 'secret-123', triggers: ['CHATA_TEMPLATE_APPROVED' as const, 'RCS_SENDER_STATUS_UPDATED' as const] };
  const first = await stub.activities.ensureWebhook(input);
  assert.deepEqual(first, { id: 'wh-1', target: input.target, triggers: input.triggers, created: true });
  assert.deepEqual(stub.seen.find((r) => r.method === 'POST')!.body, input);
  const second = await stub.activities.ensureWebhook({ ...input, triggers: ['RCS_SENDER_CREATED'] });
  assert.deepEqual(second, { id: 'wh-1', target: input.target, triggers: input.triggers, created: false });
  assert.deepEqual(stub.writes(), ['POST webhooks']);

  for (let i = 2; i <= 15; i++) await stub.activities.ensureWebhook({ ...input, target: `https://relayflow.test/hooks/${i}` });
  assert.equal(stub.store.webhooks.length, 15);
  const details = await failure(stub.activities.ensureWebhook({ ...input, target: 'https://relayflow.test/hooks/16' }), 'PlatformValidationError', true);
  assert.equal(details.code, 'invalid_input');

  assert.deepEqual(await stub.activities.deleteWebhook({ webhookId: 'wh-1' }), { webhookId: 'wh-1', deleted: true });
  assert.deepEqual(await stub.activities.deleteWebhook({ webhookId: 'wh-1' }), { webhookId: 'wh-1', deleted: false });
});

test('ensureWebhook retried after a lost answer leaves one webhook', async (t) => {
  const stub = await startStub(t, { loseAnswer: ['POST webhooks'] });
  const input = { target: 'https://relayflow.test/hooks/provisioning', secret: 'secret-123', triggers: ['CHATB_SENDER_REJECTED' as const] };
  await failure(stub.activities.ensureWebhook(input), 'PlatformUnavailableError', false);
  const retried = await stub.activities.ensureWebhook(input);
  assert.deepEqual([retried.created, retried.id], [false, 'wh-1']);
  assert.equal(stub.store.webhooks.length, 1);
  assert.ok(stub.seen.every((r) => r.authorization === 'Bearer tok'));
});
