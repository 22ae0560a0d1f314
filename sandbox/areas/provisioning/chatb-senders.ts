// CHATB sender categories and senders: create, get, list, delete. Activation is reported only in the
// resource and through CHATB_SENDER_COMMENT_ADDED with details.state ACTIVE (no dedicated trigger).
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { ChatbSender } from './model.js';
import { CHATB_SENDER_STATES, SUBMIT_STATUSES, type ChatbCategory } from '../../../common/wire/provisioning.js';
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

type Params = { projectId: string; senderId: string };

export function chatbSenderRoutes({ ctx, store, hub, reviewer }: ProvisioningDeps) {
  const review = reviewer.reviews('chatbSenders', 'chatb-sender', ({ projectId, id }: { projectId: string; id: string }, d: ReviewerConfig['chatbSenders']) => {
    const s = store.chatbSenders.get(projectId, id);
    if (!s || s.state !== 'IN_REVIEW') return;
    const activate = d.outcome === 'activate';
    const comment = d.comment ?? (activate ? DEFAULT_ACTIVATION : DEFAULT_REJECTION);
    s.state = activate ? 'ACTIVE' : 'REJECTED';
    s.comments.push({ text: comment, at: nowIso(), author: 'reviewer' });
    s.updateTime = nowIso();
    hub.emit({
      projectId,
      trigger: activate ? 'CHATB_SENDER_COMMENT_ADDED' : 'CHATB_SENDER_REJECTED',
      channel: 'CHATB',
      resourceType: 'SENDER',
      resourceId: s.id,
      details: { state: s.state },
      comment,
    });
  });

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

    // The model has no DELETED state, so a deleted sender is removed (reads 404); CHATB has no deleted trigger.
    app.delete<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      if (s.state === 'ACTIVE') {
        throw new ProvisioningError(409, 'conflict', `CHATB sender ${s.id} is ACTIVE: an active sender cannot be deleted`, {
          resolution: 'Only a sender that is not active (DRAFT, IN_REVIEW, REJECTED, INACTIVE) can be deleted.',
          additionalInformation: { state: s.state },
        });
      }
      reviewer.cancel(s.id);
      store.chatbSenders.remove(request.params.projectId, s.id);
      return {};
    });
  };
}
