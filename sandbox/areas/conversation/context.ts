// What every conversation route module shares: the area's state, the guard every platform route
// passes, and the app look-up that makes an app answer only on its own region.
import type { Region } from '../../../common/config.js';
import type { SandboxContext } from '../../core/context.js';
import { projectGuard } from '../../core/guards.js';
import type { ReportHub } from './delivery.js';
import type { InboundHub } from './inbound.js';
import { REGION_NAMES, type App } from './model.js';
import type { MtQueues } from './queue.js';
import type { ConversationSettings } from './settings.js';
import type { SendStats } from './stats.js';
import type { ConversationStore } from './store.js';
import type { ChannelTemplates } from './templates.js';
import { notFound } from './validate.js';

export interface ConversationDeps {
  ctx: SandboxContext;
  store: ConversationStore;
  settings: ConversationSettings;
  queues: MtQueues;
  reports: ReportHub;
  inbound: InboundHub;
  stats: SendStats;
  templates: ChannelTemplates;
}

/** The core's project guard, with the project's limit the control routes can change. */
export const conversationGuard = (deps: ConversationDeps) => projectGuard(deps.ctx, { rps: () => deps.settings.projectRps });

/** The app, if it is in the project and was created on this region; 404 otherwise (spec: both cases). */
export function appOn(store: ConversationStore, projectId: string, region: Region, appId: string): App {
  const app = store.app(appId);
  if (!app || app.projectId !== projectId || app.region !== region) {
    throw notFound(`App ${appId} not found in project ${projectId} on region ${REGION_NAMES[region]}`);
  }
  return app;
}

/** The region a route is mounted for (the conversation area is always regional). */
export function regionOf(region: Region | undefined): Region {
  if (!region) throw new Error('sandbox: the conversation area is mounted per region');
  return region;
}
