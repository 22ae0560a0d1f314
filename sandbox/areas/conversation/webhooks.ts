// Webhooks (docs/conversation-wire.md "Webhooks and delivery reports"): at most 5 per app, a target
// once per app, known triggers only; an app's webhooks answer only on the app's region.
import type { FastifyInstance } from 'fastify';
import type { Region } from '../../../common/config.js';
import { PROJECT, type ProjectParams } from '../../core/guards.js';
import { appOn, type ConversationDeps, conversationGuard } from './context.js';
import { MAX_WEBHOOKS_PER_APP, webhookView } from './model.js';
import { CONVERSATION_TRIGGERS as TRIGGERS } from '../../../common/wire/conversation.js';
import { join } from '../../core/fields.js';
import { fields, notFound } from './validate.js';

export function webhookRoutes(deps: ConversationDeps, region: Region) {
  const { store } = deps;
  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = conversationGuard(deps);

    app.post<{ Params: ProjectParams }>(`${PROJECT}/webhooks`, { preValidation }, async (request) => {
      const { projectId } = request.params;
      const f = fields();
      const body = f.body(request.body, ['app_id', 'target', 'target_type', 'secret', 'triggers']);
      const appId = f.ulid(body, 'app_id', '');
      const target = f.url(body, 'target', '');
      if (body.target_type !== undefined) f.member(body.target_type, 'target_type', ['HTTP']);
      const secret = f.string(body, 'secret', '', { required: true, min: 1, max: 256 });
      const triggers: string[] = [];
      f.array(body, 'triggers', '', { required: true, min: 1, max: TRIGGERS.length })?.forEach((t, i) => {
        const trigger = f.member(t, join('triggers', i), TRIGGERS);
        if (trigger && !triggers.includes(trigger)) triggers.push(trigger);
      });
      f.check();
      const owner = appOn(store, projectId, region, appId!);
      const existing = store.webhooksOf(owner.id);
      if (existing.some((w) => w.target === target)) f.add('target', `app ${owner.id} already has a webhook with this target`);
      else if (existing.length >= MAX_WEBHOOKS_PER_APP) f.add('app_id', `app ${owner.id} already has the maximum of ${MAX_WEBHOOKS_PER_APP} webhooks`);
      f.check();
      const webhook = store.addWebhook({ id: store.newId(), projectId, appId: owner.id, target: target!, targetType: 'HTTP', secret: secret!, triggers });
      return webhookView(webhook);
    });

    app.get<{ Params: ProjectParams & { app_id: string } }>(`${PROJECT}/apps/:app_id/webhooks`, { preValidation }, async (request) => {
      const f = fields('params');
      const appId = f.ulid(request.params, 'app_id', '');
      f.check();
      const owner = appOn(store, request.params.projectId, region, appId!);
      return { webhooks: store.webhooksOf(owner.id).map(webhookView) };
    });

    app.delete<{ Params: ProjectParams & { webhook_id: string } }>(`${PROJECT}/webhooks/:webhook_id`, { preValidation }, async (request) => {
      const { projectId, webhook_id: id } = request.params;
      const w = store.webhook(id.toUpperCase());
      const owner = w && store.app(w.appId);
      if (!w || !owner || w.projectId !== projectId || owner.region !== region) throw notFound(`Webhook ${id} not found in project ${projectId}`);
      store.deleteWebhook(w);
      return {};
    });
  };
}
