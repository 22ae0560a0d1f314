// CHATA senders: create (normal or embedded signup), get, list, delete. A submitted sender is decided by
// the simulated CHATA reviewer and reported through CHATA_WABA_ACCOUNT_CHANGED (details.state).
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, invalidInput, notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { ChataSender } from './model.js';
import {
  CHATA_LOCAL_STORAGES,
  CHATA_SENDER_STATES,
  CHATA_SENDER_UPDATABLE,
  CHATA_VERTICALS,
  CONVERSATION_REGIONS,
  SUBMIT_STATUSES,
  type UpdateChataSenderRequest,
} from '../../../common/wire/provisioning.js';
import type { ReviewerConfig } from './reviewer.js';
import { nowIso } from './store.js';
import { E164, fields, ULID } from './validation.js';
import { chataVerificationRoutes } from './chata-verification.js';

const ACTIVE_MAX_TPS = 80;

/** NO_VERIFIED_PHONE_NUMBER -> "No verified phone number". */
const reasonOf = (code: string) => code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');

type Draft = Omit<ChataSender, 'id' | 'state' | 'comments' | 'createTime' | 'updateTime' | 'compatibleRegions'> & { submit: boolean };

function checkCreate(input: unknown): Draft {
  const f = fields();
  const body = f.body(input, [
    'phoneNumber',
    'displayName',
    'description',
    'vertical',
    'conversationApiAppDetails',
    'platformLocalStorage',
    'status',
    'saveDraftOnFailure',
  ]);
  const phoneNumber = f.string(body, 'phoneNumber', '', { required: true, pattern: E164, patternText: 'must be an E.164 number such as +14155550100' });
  const displayName = f.string(body, 'displayName', '', { required: true, min: 1, max: 256 });
  const description = f.string(body, 'description', '', { max: 512 });
  const vertical = f.oneOf(body, 'vertical', '', CHATA_VERTICALS);
  const app = f.object(body, 'conversationApiAppDetails', '', ['appId', 'region']);
  const appId = app && f.string(app, 'appId', 'conversationApiAppDetails', { required: true, pattern: ULID, patternText: 'must be a ULID' });
  const region = app && f.oneOf(app, 'region', 'conversationApiAppDetails', CONVERSATION_REGIONS, true);
  const platformLocalStorage = f.oneOf(body, 'platformLocalStorage', '', CHATA_LOCAL_STORAGES);
  const status = f.oneOf(body, 'status', '', SUBMIT_STATUSES) ?? 'SUBMIT';
  const saveDraftOnFailure = f.boolean(body, 'saveDraftOnFailure', '') ?? false;
  f.check();
  return {
    phoneNumber: phoneNumber!,
    displayName: displayName!,
    ...(description !== undefined ? { description } : {}),
    ...(vertical ? { vertical } : {}),
    ...(appId && region ? { conversationApiAppDetails: { appId, region } } : {}),
    ...(platformLocalStorage ? { platformLocalStorage } : {}),
    saveDraftOnFailure,
    submit: status === 'SUBMIT',
  };
}

function checkEmbedded(input: unknown): Draft {
  const f = fields();
  const body = f.body(input, ['businessAccountId', 'phoneNumberId']);
  const businessAccountId = f.string(body, 'businessAccountId', '', { required: true, min: 1, max: 64 });
  const phoneNumberId = f.string(body, 'phoneNumberId', '', { required: true, min: 1, max: 64 });
  f.check();
  return { businessAccountId: businessAccountId!, phoneNumberId: phoneNumberId!, saveDraftOnFailure: false, submit: true };
}

/** A change of the business profile: only its fields, at least one. */
function checkUpdate(input: unknown): UpdateChataSenderRequest {
  const f = fields();
  const body = f.body(input, [...CHATA_SENDER_UPDATABLE]);
  const description = f.string(body, 'description', '', { max: 512 });
  const about = f.string(body, 'about', '', { min: 1, max: 139 });
  const photoUrl = f.string(body, 'photoUrl', '', { url: true });
  if (Object.keys(body).length === 0) f.add('body', `must name at least one of ${CHATA_SENDER_UPDATABLE.join(', ')}`);
  f.check();
  return {
    ...(description !== undefined ? { description } : {}),
    ...(about !== undefined ? { about } : {}),
    ...(photoUrl !== undefined ? { photoUrl } : {}),
  };
}

type Params = { projectId: string; senderId: string };

export function chataSenderRoutes({ ctx, store, hub, reviewer }: ProvisioningDeps) {
  const review = reviewer.reviews('chataSenders', 'chata-sender', ({ projectId, id }: { projectId: string; id: string }, d: ReviewerConfig['chataSenders']) => {
    const s = store.chataSenders.get(projectId, id);
    if (!s || s.state !== 'PENDING') return;
    if (d.outcome === 'activate') {
      s.state = 'ACTIVE';
      s.maxTps = ACTIVE_MAX_TPS;
      delete s.errorCode;
      delete s.errorReason;
    } else {
      s.state = d.outcome === 'reject' ? 'REJECTED' : s.saveDraftOnFailure ? 'DRAFT' : 'ERROR';
      s.errorCode = d.errorCode;
      s.errorReason = reasonOf(d.errorCode);
    }
    s.updateTime = nowIso();
    const details = { state: s.state, errorCode: s.errorCode, errorReason: s.errorReason };
    hub.emit({ projectId, trigger: 'CHATA_WABA_ACCOUNT_CHANGED', channel: 'CHATA', resourceType: 'SENDER', resourceId: s.id, details });
  });

  const create = (projectId: string, draft: Draft): ChataSender => {
    const { submit, ...fields } = draft;
    const now = nowIso();
    const region = fields.conversationApiAppDetails?.region;
    const s: ChataSender = {
      id: ulid(),
      ...fields,
      state: submit ? 'PENDING' : 'DRAFT',
      compatibleRegions: region ? [region] : [...CONVERSATION_REGIONS],
      comments: [],
      createTime: now,
      updateTime: now,
    };
    store.chataSenders.add(projectId, s);
    if (submit) review(s.id, { projectId, id: s.id });
    return s;
  };

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/chata/senders`;

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => create(request.params.projectId, checkCreate(request.body)));

    // `senders:embedded`: a literal colon after a static segment is routable (written `::`).
    app.post<{ Params: { projectId: string } }>(`${base}::embedded`, { preValidation }, async (request) =>
      create(request.params.projectId, checkEmbedded(request.body)),
    );

    listRoute(app, base, preValidation, store.chataSenders, { name: 'chata-senders', key: 'senders', states: CHATA_SENDER_STATES });

    const find = (p: Params): ChataSender => store.chataSenders.mustGet(p.projectId, p.senderId, () => notFound('CHATA sender', p.senderId));

    app.get<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => find(request.params));

    chataVerificationRoutes(app, {
      base,
      preValidation,
      find,
      verified: (projectId, s) => {
        s.state = 'PENDING';
        delete s.errorCode;
        delete s.errorReason;
        s.updateTime = nowIso();
        hub.emit({
          projectId,
          trigger: 'CHATA_WABA_ACCOUNT_CHANGED',
          channel: 'CHATA',
          resourceType: 'SENDER',
          resourceId: s.id,
          details: { state: 'PENDING' },
        });
        review(s.id, { projectId, id: s.id });
      },
    });

    // The business profile changes at once, with no review and no event (ours: docs/provisioning-wire.md).
    app.patch<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      const change = checkUpdate(request.body);
      if (s.state === 'DELETED') throw conflict(`CHATA sender ${s.id} is DELETED: a deleted sender cannot be changed`);
      Object.assign(s, change);
      s.updateTime = nowIso();
      return s;
    });

    // The model has a DELETED state: the sender stays readable, like a deleted template. No CHATA trigger
    // reports a deleted sender, so nothing is emitted. A second delete answers the deleted sender again.
    // An ACTIVE sender is deleted only when asked with force=true (ours): retiring a live sender is deliberate.
    app.delete<{ Params: Params; Querystring: { force?: string } }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      if (s.state === 'DELETED') return s;
      const force = request.query.force;
      if (force !== undefined && force !== 'true' && force !== 'false') throw invalidInput([{ field: 'force', description: 'must be true or false' }]);
      if (s.state === 'ACTIVE' && force !== 'true') {
        throw new ProvisioningError(409, 'conflict', `CHATA sender ${s.id} is ACTIVE: an active sender cannot be deleted`, {
          resolution: 'Only a sender that is not active (DRAFT, PENDING, REJECTED, ERROR) can be deleted, or an active one with force=true (it is retired).',
          additionalInformation: { state: s.state },
        });
      }
      reviewer.cancel(s.id);
      s.state = 'DELETED';
      s.updateTime = nowIso();
      return s;
    });
  };
}
