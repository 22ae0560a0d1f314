// Apps: create, list and read (docs/conversation-wire.md "Apps"). An app lives on the region it was
// created on; read on another region it is not found.
import type { FastifyInstance } from 'fastify';
import type { Region } from '../../../common/config.js';
import { PROJECT, type ProjectParams } from '../../core/guards.js';
import { appOn, type ConversationDeps, conversationGuard } from './context.js';
import { appView, CHANNELS, DEFAULT_OUTBOUND_RATE, type App } from './model.js';
import { join } from '../../core/fields.js';
import { fields } from './validate.js';

/** Highest rate_limits.outbound an app may ask for (ours: far above any real channel). */
export const MAX_OUTBOUND_RATE = 100_000;

export interface NewApp {
  projectId: string;
  region: Region;
  displayName: string;
  channels?: string[];
  outboundRate?: number;
}

export function createApp(deps: ConversationDeps, a: NewApp): App {
  return deps.store.addApp({
    id: deps.store.newId(),
    projectId: a.projectId,
    region: a.region,
    displayName: a.displayName,
    channelCredentials: (a.channels ?? []).map((channel) => ({ channel })),
    outboundRate: a.outboundRate ?? DEFAULT_OUTBOUND_RATE,
    createdAt: new Date().toISOString(),
  });
}

export function appRoutes(deps: ConversationDeps, region: Region) {
  const { store } = deps;
  return async (app: FastifyInstance): Promise<void> => {
    const preValidation = conversationGuard(deps);

    app.post<{ Params: ProjectParams }>(`${PROJECT}/apps`, { preValidation }, async (request) => {
      const f = fields();
      const body = f.body(request.body, ['display_name', 'channel_credentials', 'rate_limits']);
      const displayName = f.string(body, 'display_name', '', { required: true, min: 1, max: 100 });
      const channels: string[] = [];
      f.array(body, 'channel_credentials', '', { max: CHANNELS.length * 2 })?.forEach((c, i) => {
        const path = join('channel_credentials', i);
        // Credentials carry secrets the sandbox has no use for: only the channel is kept.
        if (!f.record(c, path, Object.keys(c as object))) return;
        const channel = f.member((c as Record<string, unknown>).channel, join(path, 'channel'), CHANNELS);
        if (channel) channels.push(channel);
      });
      let outboundRate: number | undefined;
      if (body.rate_limits !== undefined) {
        const limits = f.record(body.rate_limits, 'rate_limits', ['outbound', 'inbound', 'webhooks']);
        if (limits) outboundRate = f.integer(limits, 'outbound', 'rate_limits', { min: 1, max: MAX_OUTBOUND_RATE });
      }
      f.check();
      const created = createApp(deps, {
        projectId: request.params.projectId,
        region,
        displayName: displayName!,
        channels,
        ...(outboundRate !== undefined ? { outboundRate } : {}),
      });
      return appView(created);
    });

    app.get<{ Params: ProjectParams }>(`${PROJECT}/apps`, { preValidation }, async (request) => ({
      apps: store
        .allApps()
        .filter((a) => a.projectId === request.params.projectId && a.region === region)
        .map(appView),
    }));

    app.get<{ Params: ProjectParams & { app_id: string } }>(`${PROJECT}/apps/:app_id`, { preValidation }, async (request) => {
      const f = fields('params');
      const appId = f.ulid(request.params, 'app_id', '');
      f.check();
      return appView(appOn(store, request.params.projectId, region, appId!));
    });
  };
}
