// Registrations: create, get, list, update, delete (docs/senderid-wire.md "Registrations").
import type { FastifyInstance } from 'fastify';
import { policyById } from './catalogue.js';
import { PROJECT, projectGuard, type ProjectParams } from '../../core/guards.js';
import { type SenderIdDeps } from './context.js';
import { EDITABLE_STATES, platformTime, type Registration } from './model.js';
import { REGISTRATION_STATES, REGISTRATION_TYPES, type RegistrationState, type RegistrationType } from '../../../common/wire/senderid.js';
import { type Fields } from '../../core/fields.js';
import { bodyObject, checkRequestDetails, conflict, notFound, optionalString, optionalStrings, unknownKeys, violations } from './validate.js';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const URL_PATTERN = /^https?:\/\/[^\s]+$/;

type ItemParams = ProjectParams & { registrationId: string };
type ListQuery = { registrationState?: string; marketCode?: string; senderId?: string; registrationType?: string; pageSize?: string; pageToken?: string };

const encodeToken = (projectId: string, offset: number) => Buffer.from(JSON.stringify({ p: projectId, o: offset })).toString('base64url');

function decodeToken(v: Fields, projectId: string, token: string): number {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { p?: unknown; o?: unknown };
    if (t.p === projectId && Number.isInteger(t.o) && (t.o as number) >= 0) return t.o as number;
  } catch {
    // the violation below
  }
  v.add('pageToken', 'pageToken is not a token this list gave', 'type');
  return 0;
}

/** The sender ID an alphanumeric registration asks for: the first entry's `senderId`. */
function requestedSenderId(r: Pick<Registration, 'requestDetails'>): string | null {
  for (const d of r.requestDetails) {
    for (const o of d.senderIdDetails) if (typeof o.senderId === 'string') return o.senderId;
  }
  return null;
}

export function registrationRoutes(deps: SenderIdDeps) {
  const { store, reviewer } = deps;
  return async (app: FastifyInstance) => {
    const preValidation = projectGuard(deps.ctx);
    const base = `${PROJECT}/registrations`;

    const find = (p: ItemParams): Registration => {
      const r = store.get(p.projectId, p.registrationId);
      if (!r) throw notFound('Registration', p.registrationId);
      return r;
    };

    app.post<{ Params: ProjectParams }>(base, { preValidation }, async (request) => {
      const body = bodyObject(request.body);
      const v = violations();
      unknownKeys(v, body, ['policyId', 'requestDetails', 'callbackUrl', 'notificationContacts', 'tags', 'owner']);
      if (typeof body.policyId !== 'string' || body.policyId === '') {
        v.add('policyId', 'policyId is required', 'required');
        v.check();
      }
      const policy = policyById(body.policyId as string);
      if (!policy) throw notFound('Policy', body.policyId as string);
      const requestDetails = checkRequestDetails(v, policy, body.requestDetails);
      const callbackUrl = optionalString(v, body, 'callbackUrl', { max: 2048, pattern: URL_PATTERN });
      const notificationContacts = optionalStrings(v, body, 'notificationContacts') ?? [];
      const tags = optionalStrings(v, body, 'tags') ?? [];
      const owner = optionalString(v, body, 'owner', { max: 200 });
      v.check();
      const now = platformTime();
      const r: Registration = {
        id: store.newId(),
        projectId: request.params.projectId,
        policyId: policy.id,
        marketCode: policy.marketCode,
        registrationType: policy.registrationType,
        senderId: null,
        status: 'IN_QUEUE',
        requestDetails,
        ...(callbackUrl ? { callbackUrl } : {}),
        notificationContacts,
        tags,
        ...(owner ? { owner } : {}),
        logs: [{ createTime: now, registrationState: 'IN_QUEUE', message: 'Registration submitted.' }],
        etaDate: null,
        attachments: [],
        createTime: now,
        updateTime: now,
      };
      if (!policy.senderIdAssigned) r.senderId = requestedSenderId(r);
      store.add(r);
      reviewer.submitted(r);
      return r;
    });

    app.get<{ Params: ItemParams }>(`${base}/:registrationId`, { preValidation }, async (request) => find(request.params));

    app.put<{ Params: ItemParams }>(`${base}/:registrationId`, { preValidation }, async (request) => {
      const r = find(request.params);
      const body = bodyObject(request.body);
      const v = violations();
      unknownKeys(v, body, ['callbackUrl', 'notificationContacts', 'requestDetails']);
      const policy = policyById(r.policyId)!;
      const requestDetails = body.requestDetails === undefined ? undefined : checkRequestDetails(v, policy, body.requestDetails);
      const callbackUrl = optionalString(v, body, 'callbackUrl', { max: 2048, pattern: URL_PATTERN });
      const notificationContacts = optionalStrings(v, body, 'notificationContacts');
      v.check();
      if (!EDITABLE_STATES.includes(r.status)) throw conflict(`Registration ${r.id} cannot be updated in state ${r.status}`);
      if (requestDetails) {
        r.requestDetails = requestDetails;
        if (!policy.senderIdAssigned) r.senderId = requestedSenderId(r);
      }
      if (callbackUrl) r.callbackUrl = callbackUrl;
      if (notificationContacts) r.notificationContacts = notificationContacts;
      r.updateTime = platformTime();
      reviewer.updated(r);
      return r;
    });

    app.delete<{ Params: ItemParams }>(`${base}/:registrationId`, { preValidation }, async (request) => {
      const r = find(request.params);
      if (r.status === 'APPROVED') throw conflict(`Registration ${r.id} is APPROVED and cannot be deleted`);
      store.delete(r);
      reviewer.deleted(r.id);
      return {};
    });

    app.get<{ Params: ProjectParams; Querystring: ListQuery }>(base, { preValidation }, async (request) => {
      const q = request.query;
      const v = violations();
      if (q.registrationState !== undefined && !(REGISTRATION_STATES as readonly string[]).includes(q.registrationState)) {
        v.add('registrationState', `registrationState must be one of ${REGISTRATION_STATES.join(', ')}`, 'enum');
      }
      if (q.registrationType !== undefined && !(REGISTRATION_TYPES as readonly string[]).includes(q.registrationType)) {
        v.add('registrationType', `registrationType must be one of ${REGISTRATION_TYPES.join(', ')}`, 'enum');
      }
      if (q.marketCode !== undefined && !/^[A-Z]{2}$/.test(q.marketCode)) v.add('marketCode', 'marketCode must be two capital letters', 'pattern');
      let size = DEFAULT_PAGE_SIZE;
      if (q.pageSize !== undefined) {
        size = Number(q.pageSize);
        if (!/^[0-9]+$/.test(q.pageSize) || size < 1 || size > MAX_PAGE_SIZE) v.add('pageSize', `pageSize must be 1..${MAX_PAGE_SIZE}`, 'range');
      }
      const offset = q.pageToken ? decodeToken(v, request.params.projectId, q.pageToken) : 0;
      v.check('Invalid request');
      const all = store.list(request.params.projectId, {
        registrationType: (q.registrationType as RegistrationType | undefined) ?? 'ALPHANUMERIC_SENDER_ID',
        ...(q.registrationState ? { registrationState: q.registrationState as RegistrationState } : {}),
        ...(q.marketCode ? { marketCode: q.marketCode } : {}),
        ...(q.senderId ? { senderId: q.senderId } : {}),
      });
      const registrations = all.slice(offset, offset + size);
      const next = offset + registrations.length;
      return { registrations, nextPageToken: next < all.length ? encodeToken(request.params.projectId, next) : '', totalSize: all.length };
    });
  };
}
