// CHATA and CHATB templates: create (DRAFT or submitted), get, list, :submit, PATCH (edit and
// resubmit), DELETE. Submitted templates are decided by the simulated template reviewer.
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, notFound, ProvisioningError } from './errors.js';
import { listRoute } from './lists.js';
import type { Template } from './model.js';
import { TEMPLATE_STATES, type ProvisioningChannel as Channel, type ProvisioningTrigger as Trigger } from '../../../common/wire/provisioning.js';
import type { ReviewerConfig } from './reviewer.js';
import type { ScopedTable } from '../../core/table.js';
import { nowIso } from './store.js';
import { checkTemplateCreate, checkTemplatePatch } from './template-rules.js';

export interface TemplateChannel {
  channel: Channel;
  /** Path segment: `chata` or `chatb`. */
  segment: string;
  collection: ScopedTable<Template>;
  triggers: { approved: Trigger; rejected: Trigger; comment: Trigger; deleted?: Trigger };
}

export function templateChannels(deps: ProvisioningDeps): TemplateChannel[] {
  return [
    {
      channel: 'CHATA',
      segment: 'chata',
      collection: deps.store.chataTemplates,
      triggers: {
        approved: 'CHATA_TEMPLATE_APPROVED',
        rejected: 'CHATA_TEMPLATE_REJECTED',
        comment: 'CHATA_TEMPLATE_COMMENT_ADDED',
        deleted: 'CHATA_TEMPLATE_DELETED',
      },
    },
    {
      channel: 'CHATB',
      segment: 'chatb',
      collection: deps.store.chatbTemplates,
      triggers: { approved: 'CHATB_TEMPLATE_APPROVED', rejected: 'CHATB_TEMPLATE_REJECTED', comment: 'CHATB_TEMPLATE_COMMENT_ADDED' },
    },
  ];
}

const UPDATABLE: readonly string[] = ['DRAFT', 'REJECTED', 'APPROVED', 'PAUSED', 'DISABLED'];
/** A template in use: its edit is a pending change, reviewed apart while the live version goes on (ours). */
const LIVE: readonly string[] = ['APPROVED', 'PAUSED', 'DISABLED'];

const notUpdatable = (t: Template, what: string) =>
  new ProvisioningError(400, 'template_not_updatable', `Template ${t.id} is ${t.state}: it cannot be ${what}`, {
    resolution: t.state === 'IN_PROGRESS' ? 'Wait for the review to finish.' : 'Create a new template.',
    additionalInformation: { state: t.state },
  });

type Params = { projectId: string; templateId: string };

export function templateRoutes(deps: ProvisioningDeps, ch: TemplateChannel) {
  const { ctx, hub, reviewer } = deps;
  const emit = (projectId: string, t: Template, trigger: Trigger, details: Record<string, string | undefined>, comment?: string) =>
    hub.emit({ projectId, trigger, channel: ch.channel, resourceType: 'TEMPLATE', resourceId: t.id, details, ...(comment ? { comment } : {}) });

  const review = reviewer.reviews(
    'templates',
    `template:${ch.segment}`,
    ({ projectId, id, version }: { projectId: string; id: string; version: number }, d: ReviewerConfig['templates']) => {
      const t = ch.collection.get(projectId, id);
      if (!t || t.state !== 'IN_PROGRESS' || t.version !== version) return;
      if (d.comment) {
        t.comments.push({ text: d.comment, at: nowIso(), author: 'reviewer' });
        emit(projectId, t, ch.triggers.comment, {}, d.comment);
      }
      t.updateTime = nowIso();
      if (d.outcome === 'approve') {
        t.state = 'APPROVED';
        delete t.rejectionCode;
        t.qualityScore ??= 'QUALITY_SCORE_UNKNOWN';
        emit(projectId, t, ch.triggers.approved, { state: 'APPROVED' });
      } else {
        t.state = 'REJECTED';
        t.rejectionCode = d.rejectionCode;
        emit(projectId, t, ch.triggers.rejected, { state: 'REJECTED', rejectionCode: d.rejectionCode });
      }
    },
  );

  // The review of a live template's pending change. The template keeps its state; the decision is told by a comment
  // event (not the template's approved/rejected triggers, which would say the live template itself changed state).
  const reviewChange = reviewer.reviews(
    'templates',
    `template-change:${ch.segment}`,
    ({ projectId, id, version }: { projectId: string; id: string; version: number }, d: ReviewerConfig['templates']) => {
      const t = ch.collection.get(projectId, id);
      const pc = t?.pendingChange;
      if (!t || !pc || pc.state !== 'IN_PROGRESS' || pc.version !== version) return;
      const approve = d.outcome === 'approve';
      if (approve) {
        Object.assign(t, { category: pc.category, components: pc.components, allowCategoryChange: pc.allowCategoryChange, version: pc.version });
        delete t.pendingChange;
      } else Object.assign(pc, { state: 'REJECTED', rejectionCode: d.rejectionCode });
      t.updateTime = nowIso();
      const comment =
        d.comment ?? (approve ? `The change (version ${version}) was approved` : `The change (version ${version}) was rejected: ${d.rejectionCode}`);
      t.comments.push({ text: comment, at: nowIso(), author: 'reviewer' });
      emit(projectId, t, ch.triggers.comment, { state: t.state }, comment);
    },
  );

  const submit = (projectId: string, t: Template) => {
    t.state = 'IN_PROGRESS';
    delete t.rejectionCode;
    t.updateTime = nowIso();
    review(t.id, { projectId, id: t.id, version: t.version });
  };

  const find = (p: Params): Template => ch.collection.mustGet(p.projectId, p.templateId, () => notFound('Template', p.templateId));

  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/${ch.segment}/templates`;

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const input = checkTemplateCreate(request.body);
      const clash = ch.collection.list(projectId).find((t) => t.name === input.name && t.language === input.language && t.state !== 'DELETED');
      if (clash) throw conflict(`Template ${input.name} (${input.language}) already exists: ${clash.id}`);
      const now = nowIso();
      const t: Template = {
        id: ulid(),
        name: input.name,
        language: input.language,
        category: input.category,
        state: 'DRAFT',
        allowCategoryChange: input.allowCategoryChange,
        ...(input.messageSendTtlSeconds !== undefined ? { messageSendTtlSeconds: input.messageSendTtlSeconds } : {}),
        components: input.components,
        comments: [],
        version: 1,
        createTime: now,
        updateTime: now,
      };
      ch.collection.add(projectId, t);
      if (input.status === 'SUBMIT') submit(projectId, t);
      return t;
    });

    listRoute(app, base, preValidation, ch.collection, { name: `${ch.segment}-templates`, key: 'templates', states: TEMPLATE_STATES });

    app.get<{ Params: Params }>(`${base}/:templateId`, { preValidation }, async (request) => find(request.params));

    // `{id}:submit`: the router cannot split a parameter from a literal colon, so the action is parsed here.
    app.post<{ Params: { projectId: string; action: string } }>(`${base}/:action`, { preValidation }, async (request) => {
      const { projectId, action } = request.params;
      const m = /^(.+):submit$/.exec(action);
      if (!m) throw notFound('Operation', action);
      const t = find({ projectId, templateId: m[1]! });
      if (t.state !== 'DRAFT') throw notUpdatable(t, 'submitted');
      submit(projectId, t);
      return t;
    });

    app.patch<{ Params: Params }>(`${base}/:templateId`, { preValidation }, async (request) => {
      const t = find(request.params);
      const patch = checkTemplatePatch(request.body);
      if (!UPDATABLE.includes(t.state)) throw notUpdatable(t, 'updated');
      if (LIVE.includes(t.state)) {
        if (t.pendingChange?.state === 'IN_PROGRESS') throw notUpdatable(t, 'updated while its change is under review');
        const pc = {
          version: t.version + 1,
          state: patch.status === 'SUBMIT' ? ('IN_PROGRESS' as const) : ('DRAFT' as const),
          category: patch.category ?? t.category,
          components: patch.components ?? t.components,
          allowCategoryChange: patch.allowCategoryChange ?? t.allowCategoryChange,
        };
        t.pendingChange = pc;
        t.updateTime = nowIso();
        if (pc.state === 'IN_PROGRESS') reviewChange(t.id, { projectId: request.params.projectId, id: t.id, version: pc.version });
        return t;
      }
      if (patch.category !== undefined) t.category = patch.category;
      if (patch.components !== undefined) t.components = patch.components;
      if (patch.allowCategoryChange !== undefined) t.allowCategoryChange = patch.allowCategoryChange;
      t.version++;
      if (patch.status === 'SUBMIT') submit(request.params.projectId, t);
      else {
        t.state = 'DRAFT';
        delete t.rejectionCode;
        t.updateTime = nowIso();
      }
      return t;
    });

    // A pending change dropped: the live version stays as it is (spec part G: 404 when there is none).
    app.delete<{ Params: Params }>(`${base}/:templateId/changes`, { preValidation }, async (request) => {
      const t = find(request.params);
      if (!t.pendingChange)
        throw new ProvisioningError(404, 'not_found', `No pending changes exist for template ${t.id}`, {
          resolution: 'Only an edit of an APPROVED, PAUSED or DISABLED template waits as a pending change.',
        });
      reviewer.cancel(t.id);
      delete t.pendingChange;
      t.updateTime = nowIso();
      return t;
    });

    app.delete<{ Params: Params }>(`${base}/:templateId`, { preValidation }, async (request) => {
      const t = find(request.params);
      if (t.state === 'DELETED') return t;
      reviewer.cancel(t.id);
      t.state = 'DELETED';
      t.updateTime = nowIso();
      if (ch.triggers.deleted) emit(request.params.projectId, t, ch.triggers.deleted, { state: 'DELETED' });
      return t;
    });
  };
}
