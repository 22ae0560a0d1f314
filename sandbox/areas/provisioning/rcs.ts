// RCS senders: create (DRAFT), get, list, questionnaire, :launch, :relaunch, test numbers, delete. A
// launch is decided per country and operator by the simulated RCS reviewer.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { RcsSender } from './model.js';
import {
  RCS_STATES,
  RCS_USE_CASES,
  type RcsSenderState as RcsState,
  type ProvisioningTrigger as Trigger,
  type UpdateRcsSenderRequest,
} from '../../../common/wire/provisioning.js';
import { checkAnswers, checkContact, checkCountries, checkRcsCreate, checkRcsUpdate, missingAnswers, operatorsOf, questionsFor } from './rcs-rules.js';
import type { ReviewerConfig } from './reviewer.js';
import { nowIso } from './store.js';
import { join } from '../../core/fields.js';
import { E164, fields } from './validation.js';

type Params = { projectId: string; senderId: string };
const FEATURE = /^[A-Z][A-Z0-9_]*$/;
/** A launched sender is live with operators: it cannot be deleted (docs/provisioning-wire.md, decision). */
const UNDELETABLE: readonly RcsState[] = ['LAUNCHED', 'PARTIALLY_LAUNCHED'];
const DEFAULT_REJECTION = 'Rejected by the sandbox reviewer';

function agentIdFor(displayName: string): string {
  const slug =
    displayName
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 30) || 'agent';
  return `${slug}_${randomBytes(4).toString('hex')}_agent`;
}

export function rcsRoutes({ ctx, store, hub, reviewer }: ProvisioningDeps) {
  const emit = (projectId: string, s: RcsSender, trigger: Trigger, details: Record<string, string | undefined>, comment?: string) =>
    hub.emit({ projectId, trigger, channel: 'RCS', resourceType: 'SENDER', resourceId: s.id, details, ...(comment ? { comment } : {}) });

  const review = reviewer.reviews('rcs', 'rcs-sender', ({ projectId, id }: { projectId: string; id: string }, d: ReviewerConfig['rcs']) => {
    const s = store.rcsSenders.get(projectId, id);
    if (!s || s.state !== 'IN_REVIEW') return;
    if (d.comment) {
      s.comments.push({ text: d.comment, at: nowIso(), author: 'reviewer' });
      emit(projectId, s, 'RCS_SENDER_COMMENT_ADDED', {}, d.comment);
    }
    const pending = Object.entries(s.countryStatus).filter(([, c]) => c.status === 'PENDING');
    const reject = (c: (typeof pending)[number][1]) => {
      c.status = 'REJECTED';
      for (const op of Object.keys(c.operators)) c.operators[op] = 'REJECTED';
    };
    if (d.outcome === 'reject') {
      for (const [, c] of pending) reject(c);
      emit(projectId, s, 'RCS_SENDER_REJECTED', { state: 'REJECTED' }, d.comment ?? DEFAULT_REJECTION);
    } else {
      for (const [country, c] of pending) {
        if (d.rejectCountries.includes(country)) {
          reject(c);
          emit(projectId, s, 'RCS_SENDER_REJECTED', { country }, d.comment ?? DEFAULT_REJECTION);
          continue;
        }
        for (const operator of Object.keys(c.operators)) {
          c.operators[operator] = 'LAUNCHED';
          emit(projectId, s, 'RCS_SENDER_OPERATOR_STATUS_UPDATED', { country, operator, operatorStatus: 'LAUNCHED' });
        }
        c.status = 'LAUNCHED';
      }
    }
    const statuses = Object.values(s.countryStatus).map((c) => c.status);
    const launched = statuses.filter((st) => st === 'LAUNCHED').length;
    s.state = launched === statuses.length ? 'LAUNCHED' : launched === 0 ? 'REJECTED' : 'PARTIALLY_LAUNCHED';
    s.updateTime = nowIso();
    emit(projectId, s, 'RCS_SENDER_STATUS_UPDATED', { state: s.state });
  });

  // A change of a LAUNCHED sender is reviewed as a whole while the agent stays live (its countries stay LAUNCHED):
  // approved, the profile takes it; rejected, RCS_SENDER_REJECTED with the sender's state and the reviewer's words,
  // and the old profile stays. Either way the sender is LAUNCHED again (ours: docs/provisioning-wire.md).
  const reviewChange = reviewer.reviews(
    'rcs',
    'rcs-sender-change',
    ({ projectId, id, change }: { projectId: string; id: string; change: UpdateRcsSenderRequest }, d: ReviewerConfig['rcs']) => {
      const s = store.rcsSenders.get(projectId, id);
      if (!s || s.state !== 'IN_REVIEW') return;
      const approve = d.outcome === 'launch';
      const comment = d.comment ?? (approve ? undefined : 'Sender change rejected by the sandbox reviewer');
      if (approve) Object.assign(s, change);
      if (comment) s.comments.push({ text: comment, at: nowIso(), author: 'reviewer' });
      s.state = 'LAUNCHED';
      s.updateTime = nowIso();
      if (!approve) emit(projectId, s, 'RCS_SENDER_REJECTED', { state: 'LAUNCHED' }, comment);
      else if (comment) emit(projectId, s, 'RCS_SENDER_COMMENT_ADDED', {}, comment);
      emit(projectId, s, 'RCS_SENDER_STATUS_UPDATED', { state: 'LAUNCHED' });
    },
  );

  /** Puts the countries still to launch under review and schedules the decision. */
  const startReview = (projectId: string, s: RcsSender, contact: RcsSender['contact'], countries: string[]) => {
    const missing = missingAnswers(s.countries, s.questionnaire.answers);
    if (missing.length) {
      throw new ProvisioningError(400, 'questionnaire_incomplete', `The questionnaire lacks required answers: ${missing.map((q) => q.id).join(', ')}`, {
        resolution: `Answer them with PUT .../rcs/senders/${s.id}/questionnaire.`,
        validationErrors: missing.map((q) => ({ field: join('answers', q.id), description: 'is required' })),
      });
    }
    for (const country of countries) {
      const c = s.countryStatus[country]!;
      c.status = 'PENDING';
      c.operators = Object.fromEntries(operatorsOf(country).map((op) => [op, 'PENDING' as const]));
    }
    s.contact = contact;
    s.state = 'IN_REVIEW';
    s.updateTime = nowIso();
    emit(projectId, s, 'RCS_SENDER_STATUS_UPDATED', { state: 'IN_REVIEW' });
    reviewer.cancel(s.id);
    review(s.id, { projectId, id: s.id });
  };

  const find = (p: Params): RcsSender => store.rcsSenders.mustGet(p.projectId, p.senderId, () => notFound('RCS sender', p.senderId));

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/rcs/senders`;

    app.get<{ Params: { projectId: string; useCase: string }; Querystring: { countries?: string } }>(
      `${PROJECT}/rcs/questionnaire/:useCase`,
      { preValidation },
      async (request) => {
        const f = fields();
        const useCase = f.oneOf({ useCase: request.params.useCase }, 'useCase', '', RCS_USE_CASES, true);
        const raw = request.query.countries
          ? request.query.countries
              .split(',')
              .map((c) => c.trim())
              .filter(Boolean)
          : [];
        const countries = checkCountries(f, raw, 'countries');
        f.check();
        return { useCase, questions: questionsFor(countries) };
      },
    );

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const input = checkRcsCreate(request.body);
      const now = nowIso();
      const s: RcsSender = {
        id: ulid(),
        agentId: agentIdFor(input.displayName),
        ...input,
        state: 'DRAFT',
        countryStatus: Object.fromEntries(
          // Operators appear when a country goes under review.
          input.countries.map((c) => [c, { status: 'NOT_LAUNCHED' as const, operators: {} }]),
        ),
        questionnaire: { answers: {} },
        comments: [],
        testNumbers: [],
        createTime: now,
        updateTime: now,
      };
      store.rcsSenders.add(projectId, s);
      emit(projectId, s, 'RCS_SENDER_CREATED', { state: 'DRAFT' });
      return s;
    });

    listRoute(app, base, preValidation, store.rcsSenders, { name: 'rcs-senders', key: 'senders', states: RCS_STATES });

    app.get<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => find(request.params));

    app.put<{ Params: Params }>(`${base}/:senderId/questionnaire`, { preValidation }, async (request) => {
      const s = find(request.params);
      s.questionnaire = { answers: checkAnswers(request.body, s.useCase, s.countries) };
      s.updateTime = nowIso();
      return s;
    });

    // `{id}:launch` and `{id}:relaunch` (parsed here: the router cannot split a parameter at a colon).
    app.post<{ Params: { projectId: string; action: string } }>(`${base}/:action`, { preValidation }, async (request) => {
      const { projectId, action } = request.params;
      const m = /^(.+):(launch|relaunch)$/.exec(action);
      if (!m) throw notFound('Operation', action);
      const s = find({ projectId, senderId: m[1]! });
      const contact = checkContact(request.body);
      const launchable: RcsState[] = m[2] === 'launch' ? ['DRAFT'] : ['REJECTED', 'PARTIALLY_LAUNCHED'];
      const countries = m[2] === 'launch' ? s.countries : s.countries.filter((c) => s.countryStatus[c]?.status === 'REJECTED');
      if (!launchable.includes(s.state) || countries.length === 0) {
        throw conflict(`RCS sender ${s.id} is ${s.state}: ${m[2] === 'launch' ? 'only a DRAFT can be launched' : 'only a rejection can be relaunched'}`);
      }
      startReview(projectId, s, contact, countries);
      return s;
    });

    // A DRAFT's profile changes at once (the launch reviews it); a LAUNCHED sender's change is reviewed.
    app.patch<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const s = find(request.params);
      const change = checkRcsUpdate(request.body);
      if (s.state !== 'DRAFT' && s.state !== 'LAUNCHED') throw conflict(`RCS sender ${s.id} is ${s.state}: only a DRAFT or a LAUNCHED sender can be changed`);
      s.updateTime = nowIso();
      if (s.state === 'DRAFT') return Object.assign(s, change);
      s.state = 'IN_REVIEW';
      emit(projectId, s, 'RCS_SENDER_STATUS_UPDATED', { state: 'IN_REVIEW' });
      reviewChange(s.id, { projectId, id: s.id, change });
      return s;
    });

    // The model has no DELETED state, so a deleted sender is removed (reads 404); RCS has no deleted trigger.
    app.delete<{ Params: Params }>(`${base}/:senderId`, { preValidation }, async (request) => {
      const s = find(request.params);
      if (UNDELETABLE.includes(s.state)) {
        throw new ProvisioningError(409, 'conflict', `RCS sender ${s.id} is ${s.state}: a launched sender cannot be deleted`, {
          resolution: 'Only a sender that is not launched (DRAFT, IN_REVIEW, REJECTED) can be deleted.',
          additionalInformation: { state: s.state },
        });
      }
      reviewer.cancel(s.id);
      store.rcsSenders.remove(request.params.projectId, s.id);
      return {};
    });

    app.post<{ Params: Params }>(`${base}/:senderId/testNumbers`, { preValidation }, async (request) => {
      const s = find(request.params);
      const f = fields();
      const body = f.body(request.body, ['phoneNumber', 'features']);
      const phoneNumber = f.string(body, 'phoneNumber', '', { required: true, pattern: E164, patternText: 'must be an E.164 number such as +33612345678' });
      const features = f.array(body, 'features', '') ?? [];
      features.forEach((x, i) => {
        if (typeof x !== 'string' || !FEATURE.test(x)) f.add(join('features', i), 'must be a feature name such as ACTION_COMPOSE');
      });
      f.check();
      if (s.state === 'DRAFT') {
        throw new ProvisioningError(400, 'add_test_number_not_allowed_before_launch', `RCS sender ${s.id} has not been launched yet`, {
          resolution: `Launch the sender first (POST .../rcs/senders/${s.id}:launch).`,
        });
      }
      const entry = { phoneNumber: phoneNumber!, features: [...new Set(features as string[])], state: 'PENDING' };
      s.testNumbers = [...s.testNumbers.filter((t) => t.phoneNumber !== entry.phoneNumber), entry];
      s.updateTime = nowIso();
      return { testNumbers: s.testNumbers };
    });
  };
}
