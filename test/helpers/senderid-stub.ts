// An in-memory sender ID platform for the activity unit tests: the parts of docs/senderid-wire.md the
// activities use, for project `proj-1`, 2 registrations per page whatever pageSize asks, with the token
// service; lost answers (act, then drop the connection) on demand. Records every request.
import type { TestContext } from 'node:test';
import type { ServerResponse } from 'node:http';
import { createActivities } from '../../processes/activities.js';
import { oneUrlPlatformClients } from './platform-config.js';
import { listenStub, sendJson } from './stub-server.js';
import type { Policy, Registration } from '../../common/wire/senderid.js';
import { EDITABLE_REGISTRATION_STATES } from '../../platform/senderid/types.js';

type Obj = Record<string, unknown>;

const POLICY: Policy = {
  id: 'pol-au-alpha',
  marketCode: 'AU',
  registrationType: 'ALPHANUMERIC_SENDER_ID',
  name: 'AU alphanumeric',
  senderIdAssigned: false,
  manualApproval: false,
  fields: [
    {
      section: 'senderIdDetails',
      key: 'senderId',
      label: 'Sender ID',
      required: true,
      validations: [{ rule: 'maxLength', value: 11, message: 'at most 11 characters' }],
    },
    { section: 'additionalDetails', key: 'companyName', label: 'Company name', required: true, validations: [] },
  ],
  attachmentDefinitions: [
    {
      id: 'att-loa',
      title: 'Letter of authorisation',
      description: '',
      mandatory: true,
      template: true,
      acceptedMimeTypes: ['application/pdf'],
      maxSizeBytes: 16,
    },
  ],
};

const LONG_POLICY: Policy = {
  ...POLICY,
  id: 'pol-au-long',
  registrationType: 'LONG_NUMBER',
  senderIdAssigned: true,
  fields: [POLICY.fields[1]!],
  attachmentDefinitions: [],
};

interface StubOptions {
  /** `METHOD path-after-project` (e.g. `POST registrations`): act, then drop the connection, once each. */
  loseAnswer?: string[];
}

export async function startSenderIdStub(t: TestContext, opts: StubOptions = {}) {
  const lose = new Set(opts.loseAnswer ?? []);
  const policies = new Map([POLICY, LONG_POLICY].map((p) => [p.id, p]));
  const registrations: Registration[] = [];
  let ids = 0;
  const seen: Array<{ method: string; path: string; query: Record<string, string>; body: unknown }> = [];

  const send = (res: ServerResponse, status: number, body?: unknown) => sendJson(res, status, body);
  const error = (code: number, status: string, message: string, details: unknown[] = []) =>
    [code, { error: { code, message, status, details } }] as [number, unknown];
  const merged = (arr: unknown): Obj => Object.assign({}, ...((arr as Obj[] | undefined) ?? []));

  const route = (m: string, path: string, q: URLSearchParams, body: Obj): [number, unknown] => {
    let g: RegExpExecArray | null;
    if ((g = /^policies\/([^/]+)$/.exec(path)) && m === 'GET') {
      const p = policies.get(decodeURIComponent(g[1]!));
      return p ? [200, p] : error(404, 'NOT_FOUND', 'Policy not found');
    }
    if (path === 'registrations' && m === 'POST') {
      const p = policies.get(String(body.policyId));
      if (!p) return error(404, 'NOT_FOUND', 'Policy not found');
      const details = (body.requestDetails as Obj[] | undefined) ?? [];
      const violations: Obj[] = [];
      details.forEach((d, i) => {
        const sid = merged(d.senderIdDetails);
        const add = merged(d.additionalDetails);
        if (!p.senderIdAssigned && typeof sid.senderId !== 'string')
          violations.push({ field: `requestDetails[${i}].senderIdDetails.senderId`, rule: 'required', description: 'Sender ID is required' });
        if (typeof sid.senderId === 'string' && sid.senderId.length > 11)
          violations.push({ field: `requestDetails[${i}].senderIdDetails.senderId`, rule: 'maxLength', description: 'Sender ID: at most 11 characters' });
        if (typeof add.companyName !== 'string')
          violations.push({ field: `requestDetails[${i}].additionalDetails.companyName`, rule: 'required', description: 'Company name is required' });
      });
      if (violations.length) return error(400, 'INVALID_ARGUMENT', 'Registration validation error', violations);
      const now = '2025-01-01T00:00:00';
      const r: Registration = {
        id: `reg-${++ids}`,
        projectId: 'proj-1',
        policyId: p.id,
        marketCode: p.marketCode,
        registrationType: p.registrationType,
        senderId: p.senderIdAssigned ? null : String(merged(details[0]?.senderIdDetails).senderId),
        status: 'IN_QUEUE',
        requestDetails: details.map((d) => ({ senderIdDetails: (d.senderIdDetails as never) ?? [], additionalDetails: (d.additionalDetails as never) ?? [] })),
        notificationContacts: (body.notificationContacts as string[] | undefined) ?? [],
        tags: (body.tags as string[] | undefined) ?? [],
        logs: [{ createTime: now, registrationState: 'IN_QUEUE', message: 'Registration submitted.' }],
        etaDate: null,
        attachments: [],
        createTime: now,
        updateTime: now,
      };
      registrations.push(r);
      return [200, r];
    }
    if (path === 'registrations' && m === 'GET') {
      const type = q.get('registrationType') ?? 'ALPHANUMERIC_SENDER_ID';
      const all = registrations.filter((r) => r.registrationType === type && (!q.get('marketCode') || r.marketCode === q.get('marketCode')));
      const start = Number(q.get('pageToken') || 0);
      const next = start + 2 < all.length ? String(start + 2) : '';
      return [200, { registrations: all.slice(start, start + 2), nextPageToken: next, totalSize: all.length }];
    }
    if ((g = /^registrations\/([^/]+)$/.exec(path))) {
      const r = registrations.find((x) => x.id === decodeURIComponent(g![1]!));
      if (!r) return error(404, 'NOT_FOUND', 'Registration not found');
      if (m === 'GET') return [200, r];
      if (m === 'PUT') {
        if (!EDITABLE_REGISTRATION_STATES.includes(r.status)) return error(409, 'FAILED_PRECONDITION', `Registration cannot be updated in state ${r.status}`);
        if (body.notificationContacts) r.notificationContacts = body.notificationContacts as string[];
        if (r.status === 'PENDING') r.status = 'IN_PROGRESS';
        return [200, r];
      }
      if (m === 'DELETE') {
        registrations.splice(registrations.indexOf(r), 1);
        return [200, {}];
      }
    }
    return error(404, 'NOT_FOUND', `no route ${m} ${path}`);
  };

  const base = await listenStub(t, (req, res) => {
    const raw = req.text;
    const url = new URL(req.url!, 'http://stub');
    if (url.pathname === '/auth/oauth2/token') return send(res, 200, { access_token: 'tok', expires_in: 3600 });
    const path = url.pathname.replace(/^\/v1\/projects\/proj-1\//, '');
    const body = raw === '' ? {} : (JSON.parse(raw) as Obj);
    seen.push({ method: req.method!, path, query: Object.fromEntries(url.searchParams), body: raw === '' ? undefined : body });
    const [status, answer] = route(req.method!, path, url.searchParams, body);
    const key = `${req.method} ${path}`;
    if (lose.delete(key)) return res.destroy();
    send(res, status, answer);
  });
  const clients = oneUrlPlatformClients(base);
  return { activities: createActivities({ clients }), registrations, seen };
}
