// Webhook registration: at most 15 per project, target unique per project, known triggers only; an update
// (PATCH) changes the fields given under the same rules. Later deliveries, retries of earlier ones included, are
// signed with the webhook's secret at the time they are sent (delivery.ts).
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { PROJECT, projectGuard } from '../../core/guards.js';
import { type ProvisioningDeps } from './context.js';
import { conflict, invalidInput, notFound } from './errors.js';
import { ALL_TRIGGERS, type Webhook } from './model.js';
import { join, mustBeOneOf, type Fields } from '../../core/fields.js';
import { fields } from './validation.js';

const MAX_WEBHOOKS_PER_PROJECT = 15;

const view = (w: Webhook) => ({ id: w.id, target: w.target, triggers: [...w.triggers] });

export function webhookRoutes({ ctx, store }: ProvisioningDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = projectGuard(ctx);
    const base = `${PROJECT}/webhooks`;

    app.post<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const f = fields();
      const { target, secret, triggers } = webhookFields(f, request.body, true);
      f.check();
      const existing = store.webhooks.list(projectId);
      if (existing.some((w) => w.target === target)) throw conflict(`A webhook with target ${target} already exists in project ${projectId}`);
      if (existing.length >= MAX_WEBHOOKS_PER_PROJECT) {
        throw invalidInput([{ field: 'target', description: `project ${projectId} already has the maximum of ${MAX_WEBHOOKS_PER_PROJECT} webhooks` }]);
      }
      const webhook: Webhook = { id: ulid(), target: target!, secret: secret!, triggers: triggers! };
      return view(store.webhooks.add(projectId, webhook));
    });

    app.get<{ Params: { projectId: string } }>(base, { preValidation }, async (request) => ({
      webhooks: store.webhooks.list(request.params.projectId).map(view),
    }));

    // Update [public API reference: PATCH, every field optional]; at least one field [decision], each checked as at create.
    app.patch<{ Params: { projectId: string; webhookId: string } }>(`${base}/:webhookId`, { preValidation }, async (request) => {
      const { projectId, webhookId } = request.params;
      const f = fields();
      const { target, secret, triggers } = webhookFields(f, request.body, false);
      if (f.violations.length === 0 && target === undefined && secret === undefined && triggers === undefined) {
        f.add('body', 'must name at least one of target, secret, triggers');
      }
      f.check();
      const webhook = store.webhooks.mustGet(projectId, webhookId, () => notFound('Webhook', webhookId));
      if (target !== undefined && target !== webhook.target && store.webhooks.list(projectId).some((w) => w.target === target)) {
        throw conflict(`A webhook with target ${target} already exists in project ${projectId}`);
      }
      const updated: Webhook = {
        ...webhook,
        ...(target !== undefined ? { target } : {}),
        ...(secret !== undefined ? { secret } : {}),
        ...(triggers ? { triggers } : {}),
      };
      return view(store.webhooks.add(projectId, updated));
    });

    app.delete<{ Params: { projectId: string; webhookId: string } }>(`${base}/:webhookId`, { preValidation }, async (request) => {
      const { projectId, webhookId } = request.params;
      if (!store.webhooks.remove(projectId, webhookId)) throw notFound('Webhook', webhookId);
      return {};
    });
  };
}

/** target, secret and triggers as at create (all required) or at an update (each optional); triggers without repeats. */
function webhookFields(f: Fields, value: unknown, required: boolean): { target?: string; secret?: string; triggers?: string[] } {
  const body = f.body(value, ['target', 'secret', 'triggers']);
  const target = f.string(body, 'target', '', { required, max: 2048, url: true });
  const secret = f.string(body, 'secret', '', { required, min: 8, max: 256 });
  const triggers = f.array(body, 'triggers', '', { required, min: 1 });
  triggers?.forEach((t, i) => {
    if (typeof t !== 'string' || !ALL_TRIGGERS.includes(t)) f.add(join('triggers', i), mustBeOneOf(ALL_TRIGGERS));
  });
  return {
    ...(target !== undefined ? { target } : {}),
    ...(secret !== undefined ? { secret } : {}),
    ...(triggers !== undefined ? { triggers: [...new Set(triggers as string[])] } : {}),
  };
}
