// CHATB sender categories and senders: create, get, list, delete. Activation is reported only in the
// resource and through CHATB_SENDER_COMMENT_ADDED with details.state ACTIVE (no dedicated trigger).
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, invalidInput, notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { ChatbSender } from './model.js';
import {
  CHATB_SENDER_STATES,
  CHATB_SENDER_UPDATABLE,
  SUBMIT_STATUSES,
  type ChatbCategory,
  type UpdateChatbSenderRequest,
} from '../../../common/wire/provisioning.js';
import type { ReviewerConfig } from './reviewer.js';
import { nowIso } from './store.js';
import { mustBeOneOf } from '../../core/fields.js';
import { fields } from './validation.js';

const sub = (code: string, name: string, nameEnglish: string) => ({ code, name, nameEnglish });

const CHATB_CATEGORIES: readonly ChatbCategory[] = [
  {
    code: 'RETAIL',
    name: '小売',
    nameEnglish: 'Retail',
    subcategories: [sub('FASHION', 'ファッション', 'Fashion'), sub('ELECTRONICS', '家電', 'Electronics')],
  },
  { code: 'FINANCE', name: '金融', nameEnglish: 'Finance', subcategories: [sub('BANKING', '銀行', 'Banking'), sub('INSURANCE', '保険', 'Insurance')] },
  { code: 'TRAVEL', name: '旅行', nameEnglish: 'Travel', subcategories: [sub('AIRLINE', '航空', 'Airline'), sub('HOTEL', 'ホテル', 'Hotel')] },
  { code: 'HEALTH', name: '医療', nameEnglish: 'Health', subcategories: [sub('CLINIC', 'クリニック', 'Clinic'), sub('PHARMACY', '薬局', 'Pharmacy')] },
];

const DEFAULT_ACTIVATION = 'Sender approved and active';
const DEFAULT_REJECTION = 'Rejected by the sandbox reviewer';

function checkCreate(input: unknown): Omit<ChatbSender, 'id' | 'state' | 'comments' | 'createTime' | 'updateTime'> & { submit: boolean } {
  const f = fields();
  const body = f.body(input, ['displayName', 'categoryCode', 'subcategoryCode', 'description', 'status']);
  const displayName = f.string(body, 'displayName', '', { required: true, min: 1, max: 64 });
  const categoryCode = f.oneOf(
    body,
    'categoryCode',
    '',
    CHATB_CATEGORIES.map((c) => c.code),
    true,
  );
  const subcategoryCode = f.string(body, 'subcategoryCode', '');
  const category = CHATB_CATEGORIES.find((c) => c.code === categoryCode);
  if (category && subcategoryCode !== undefined && !category.subcategories.some((s) => s.code === subcategoryCode)) {
    f.add('subcategoryCode', `for category ${category.code} ${mustBeOneOf(category.subcategories.map((s) => s.code))}`);
  }
  const description = f.string(body, 'description', '', { max: 512 });
  const status = f.oneOf(body, 'status', '', SUBMIT_STATUSES) ?? 'SUBMIT';
  f.check();
  return {
    displayName: displayName!,
    categoryCode: categoryCode!,
    ...(subcategoryCode !== undefined ? { subcategoryCode } : {}),
    ...(description !== undefined ? { description } : {}),
    submit: status === 'SUBMIT',
  };
}

/** A change's fields, checked as a create checks them (the category against the sender's, when only the subcategory changes). */
function checkUpdate(input: unknown, current: ChatbSender): UpdateChatbSenderRequest {
  const f = fields();
  const body = f.body(input, [...CHATB_SENDER_UPDATABLE]);
  const categoryCode = f.oneOf(
    body,
    'categoryCode',
    '',
    CHATB_CATEGORIES.map((c) => c.code),
  );
  const subcategoryCode = f.string(body, 'subcategoryCode', '');
  const category = CHATB_CATEGORIES.find((c) => c.code === (categoryCode ?? current.categoryCode));
  if (category && subcategoryCode !== undefined && !category.subcategories.some((s) => s.code === subcategoryCode)) {
    f.add('subcategoryCode', `for category ${category.code} ${mustBeOneOf(category.subcategories.map((s) => s.code))}`);
  }
  const description = f.string(body, 'description', '', { max: 512 });
  if (categoryCode === undefined && subcategoryCode === undefined && description === undefined)
    f.add('body', `must name at least one of ${CHATB_SENDER_UPDATABLE.join(', ')}`);
  f.check();
  return {
    ...(categoryCode !== undefined ? { categoryCode } : {}),
    ...(subcategoryCode !== undefined ? { subcategoryCode } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}

type Params = { projectId: string; senderId: string };

export function chatbSenderRoutes({ ctx, store, hub, reviewer }: ProvisioningDeps) {
  /** A decision on an IN_REVIEW sender: the sender takes `state`, the reviewer's comment, and the event that says so. */
  function decide(projectId: string, s: ChatbSender, state: ChatbSender['state'], approved: boolean, comment: string): void {
    s.state = state;
    s.comments.push({ text: comment, at: nowIso(), author: 'reviewer' });
    s.updateTime = nowIso();
    hub.emit({
      projectId,
      trigger: approved ? 'CHATB_SENDER_COMMENT_ADDED' : 'CHATB_SENDER_REJECTED',
      channel: 'CHATB',
      resourceType: 'SENDER',
      resourceId: s.id,
      details: { state: s.state },
      comment,
    });
  }
  const inReview = (projectId: string, id: string) => {
    const s = store.chatbSenders.get(projectId, id);
    return s?.state === 'IN_REVIEW' ? s : undefined;
  };

  const review = reviewer.reviews('chatbSenders', 'chatb-sender', ({ projectId, id }: { projectId: string; id: string }, d: ReviewerConfig['chatbSenders']) => {
    const s = inReview(projectId, id);
    if (!s) return;
    const activate = d.outcome === 'activate';
    decide(projectId, s, activate ? 'ACTIVE' : 'REJECTED', activate, d.comment ?? (activate ? DEFAULT_ACTIVATION : DEFAULT_REJECTION));
  });

  // A change of an ACTIVE sender waits for the reviewer, who keeps it in the pending job (not on the sender): the
  // sender stays live with its old fields, IN_REVIEW, until the decision; rejected, it is ACTIVE again without the
  // change (ours: docs/provisioning-wire.md).
  const reviewChange = reviewer.reviews(
    'chatbSenders',
    'chatb-sender-change',
    ({ projectId, id, change }: { projectId: string; id: string; change: UpdateChatbSenderRequest }, d: ReviewerConfig['chatbSenders']) => {
      const s = inReview(projectId, id);
      if (!s) return;
      const approve = d.outcome === 'activate';
      if (approve) Object.assign(s, change);
      decide(projectId, s, 'ACTIVE', approve, d.comment ?? (approve ? 'Sender change approved' : 'Sender change rejected by the sandbox reviewer'));
    },
  );

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/chatb/senders`;

    app.get<{ Params: { projectId: string } }>(`${PROJECT}/chatb/categories`, { preValidation }, async () => ({ categories: CHATB_CATEGORIES }));

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const { submit, ...fields } = checkCreate(request.body);
      const now = nowIso();
      const s: ChatbSender = { id: ulid(), ...fields, state: submit ? 'IN_REVIEW' : 'DRAFT', comments: [], createTime: now, updateTime: now };
      store.chatbSenders.add(projectId, s);
      if (submit) review(s.id, { projectId, id: s.id });
      return s;
    });

    listRoute(app, base, preValidation, store.chatbSenders, { name: 'chatb-senders', key: 'senders', states: CHATB_SENDER_STATES });

    const find = (p: Params): ChatbSender => store.chatbSenders.mustGet(p.projectId, p.senderId, () => notFound('CHATB sender', p.senderId));

    app.get<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => find(request.params));

    app.patch<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      const change = checkUpdate(request.body, s);
      if (s.state === 'IN_REVIEW') throw conflict(`CHATB sender ${s.id} is IN_REVIEW: change it once the review is decided`);
      s.updateTime = nowIso();
      if (s.state !== 'ACTIVE') return Object.assign(s, change);
      s.state = 'IN_REVIEW';
      reviewChange(s.id, { projectId: request.params.projectId, id: s.id, change });
      return s;
    });

    // The model has no DELETED state, so a deleted sender is removed (reads 404); CHATB has no deleted trigger.
    // An ACTIVE sender is deleted only when asked with force=true (ours): retiring a live sender is deliberate.
    app.delete<{ Params: Params; Querystring: { force?: string } }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      const force = request.query.force;
      if (force !== undefined && force !== 'true' && force !== 'false') throw invalidInput([{ field: 'force', description: 'must be true or false' }]);
      if (s.state === 'ACTIVE' && force !== 'true') {
        throw new ProvisioningError(409, 'conflict', `CHATB sender ${s.id} is ACTIVE: an active sender cannot be deleted`, {
          resolution:
            'Only a sender that is not active (DRAFT, IN_REVIEW, REJECTED, INACTIVE) can be deleted, or an active one with force=true (it is retired).',
          additionalInformation: { state: s.state },
        });
      }
      reviewer.cancel(s.id);
      store.chatbSenders.remove(request.params.projectId, s.id);
      return {};
    });
  };
}
