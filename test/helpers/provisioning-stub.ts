// An in-memory provisioning platform for the activity and client unit tests: the contract of
// docs/provisioning-wire.md for one project, with lost answers and concurrent creators on demand.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApplicationFailure } from '@temporalio/common';
import { createActivities } from '../../processes/activities.js';
import { oneUrlPlatformClients } from './platform-config.js';
import { listenStub, sendJson } from './stub-server.js';
import type { PlatformFailureDetails } from '../../processes/shared/activities/failures.js';

export type Obj = Record<string, unknown>;

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
export async function startStub(t: TestContext, opts: StubOptions = {}) {
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

  const send = (res: ServerResponse, status: number, body?: unknown) => sendJson(res, status, body);
  const fail = (res: ServerResponse, status: number, errorCode: string, extra: Obj = {}) =>
    send(res, status, { errorCode, message: errorCode.replace(/_/g, ' '), resolution: 'see the documentation', ...extra });
  const invalid = (res: ServerResponse, validationErrors: Array<{ field: string; description: string }>) =>
    fail(res, 400, 'invalid_input', { validationErrors });
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
      opts.beforeCreate?.webhooks?.();
      if (store.webhooks.length >= 15) return void invalid(res, [{ field: 'webhooks', description: 'at most 15 webhooks per project' }]);
      if (store.webhooks.some((w) => w.target === body.target)) return void fail(res, 409, 'conflict');
      const w = { id: nextId('wh'), target: body.target, triggers: body.triggers, secret: body.secret };
      store.webhooks.push(w);
      return [200, { id: w.id, target: w.target, triggers: w.triggers }];
    }
    if ((g = /^webhooks\/([^/]+)$/.exec(path)) && m === 'PATCH') {
      const w = store.webhooks.find((x) => x.id === g![1]);
      if (!w) return void fail(res, 404, 'not_found');
      Object.assign(w, body);
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
        const tpl = {
          id: nextId('tpl'),
          name: body.name,
          language: body.language,
          category: body.category,
          state: body.status === 'DRAFT' ? 'DRAFT' : 'IN_PROGRESS',
          allowCategoryChange: body.allowCategoryChange ?? false,
          components: body.components,
          comments: [],
          version: 1,
          updateTime: '2025-06-01T00:00:00Z',
        };
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
      if (!['MULTIUSE', 'TRANSACTIONAL', 'PROMOTIONAL', 'OTP'].includes(g[1]!))
        return void invalid(res, [{ field: 'useCase', description: 'must be one of MULTIUSE, TRANSACTIONAL, PROMOTIONAL, OTP' }]);
      const countries = (q.get('countries') ?? '').split(',').filter(Boolean);
      const questions = [
        { id: 'brand_description', text: 'Describe the brand', required: true },
        ...(countries.includes('FR') ? [{ id: 'siren', text: 'SIREN', required: true, country: 'FR' }] : []),
      ];
      return [200, { useCase: g[1], questions }];
    }
    if (path === 'rcs/senders' && m === 'GET') return void page(res, 'senders', store.rcs, q);
    if (path === 'rcs/senders' && m === 'POST') {
      const banner = body.banner as { width: number; height: number };
      if (banner.width !== 1440 || banner.height !== 448)
        return void fail(res, 400, 'file_has_wrong_dimensions', { additionalInformation: { requiredWidth: 1440, requiredHeight: 448 } });
      const s = {
        id: nextId('rcs'),
        agentId: nextId('agent'),
        displayName: body.displayName,
        state: 'DRAFT',
        countryStatus: Object.fromEntries((body.countries as string[]).map((c) => [c, { status: 'NOT_LAUNCHED', operators: {} }])),
        comments: [],
        testNumbers: [] as Obj[],
      };
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
        if (missing.length)
          return void invalid(
            res,
            missing.map((id) => ({ field: `answers.${id}`, description: 'required' })),
          );
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
        ? {
            id: nextId('chata'),
            businessAccountId: body.businessAccountId,
            phoneNumberId: body.phoneNumberId,
            state: 'PENDING',
            compatibleRegions: ['EU'],
            comments: [],
          }
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
      return [
        200,
        {
          categories: [{ code: 'RETAIL', name: 'Commerce', nameEnglish: 'Retail', subcategories: [{ code: 'FASHION', name: 'Mode', nameEnglish: 'Fashion' }] }],
        },
      ];
    }
    if (path === 'chatb/senders' && m === 'GET') return void page(res, 'senders', store.chatb, q);
    if (path === 'chatb/senders' && m === 'POST') {
      if (body.categoryCode !== 'RETAIL') return void invalid(res, [{ field: 'categoryCode', description: 'unknown category code' }]);
      const s = {
        id: nextId('chatb'),
        displayName: body.displayName,
        categoryCode: body.categoryCode,
        state: body.status === 'DRAFT' ? 'DRAFT' : 'IN_REVIEW',
        comments: [],
      };
      store.chatb.push(s);
      return [200, s];
    }
    if ((g = /^chatb\/senders\/([^/]+)$/.exec(path)) && m === 'GET') {
      const s = store.chatb.find((x) => x.id === g![1]);
      return s ? [200, s] : void fail(res, 404, 'not_found');
    }
    return void fail(res, 404, 'not_found');
  };

  const base = await listenStub(t, (req, res) => {
    const raw = req.text;
    const url = new URL(req.url!, 'http://stub');
    if (url.pathname === '/auth/oauth2/token') return send(res, 200, { access_token: 'tok', expires_in: 3600 });
    const body = raw === '' ? {} : (JSON.parse(raw) as Obj);
    const pm = /^\/prov\/v1\/projects\/([^/]+)\/(.+)$/.exec(url.pathname);
    seen.push({
      method: req.method!,
      path: pm?.[2] ?? url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body: raw === '' ? undefined : body,
    });
    if (req.headers.authorization !== 'Bearer tok') return fail(res, 401, 'unauthenticated');
    if (!pm) return fail(res, 404, 'not_found');
    if (pm[1] !== 'proj-1') return fail(res, 403, 'forbidden');
    const answer = route(req, decodeURIComponent(pm[2]!), url.searchParams, body, res);
    if (!answer) return;
    const key = `${req.method} ${pm[2]}`;
    if (lose.delete(key)) return req.socket.destroy();
    send(res, answer[0], answer[1]);
  });
  const clients = oneUrlPlatformClients(base, { urls: { provisioning: `${base}/prov` } });
  const activities = createActivities({ clients });
  /** Requests that change something (not GET). */
  const writes = () => seen.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);
  return { activities, clients, store, seen, writes };
}

/** Asserts a mapped activity failure and returns its first details entry. */
export async function failure(p: Promise<unknown>, type: string, nonRetryable: boolean): Promise<PlatformFailureDetails> {
  const err = await p.then(
    () => assert.fail(`expected ${type}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApplicationFailure, String(err));
  assert.equal(err.type, type);
  assert.equal(err.nonRetryable, nonRetryable);
  return err.details![0] as PlatformFailureDetails;
}

export const tplInput = (name = 'order_update', language = 'en_US') => ({
  name,
  language,
  category: 'UTILITY' as const,
  components: [{ type: 'BODY' as const, text: 'Your order {{1}} shipped' }],
});
export const addTemplate = (list: Obj[], n: number, extra: Obj = {}) =>
  list.push({
    id: `old-${n}`,
    name: `other_${n}`,
    language: 'en_US',
    category: 'UTILITY',
    state: 'APPROVED',
    allowCategoryChange: false,
    components: [],
    comments: [],
    version: 1,
    updateTime: 'x',
    ...extra,
  });

export const rcsInput = (displayName = 'Acme', width = 1440) => ({
  displayName,
  description: 'Acme agent',
  websites: [{ url: 'https://acme.test' }],
  brandPhoneNumber: '+33612345678',
  banner: { url: 'https://acme.test/banner.png', width, height: 448 },
  useCase: 'MULTIUSE' as const,
  countries: ['FR'],
});
