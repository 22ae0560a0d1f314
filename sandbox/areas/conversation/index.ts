// Area D, conversation messaging (docs/conversation-wire.md), mounted once per region with one shared
// state: apps that answer only on their region, messages:send with the platform's validation and
// limits, per-app MT queues drained at the outbound rate into signed delivery reports, webhooks, and
// control routes under /_sandbox/conversation for outcomes, faults and the counts tests rely on.
import type { SandboxArea } from '../../core/area.js';
import { approvedChannelTemplates } from '../channel-templates-link.js';
import { bundleConversationApps } from '../bundle-apps-link.js';
import { DEFAULT_OUTBOUND_RATE } from './model.js';
import { appRoutes } from './apps.js';
import { regionOf, type ConversationDeps } from './context.js';
import { conversationControlRoutes } from './control.js';
import { ReportHub } from './delivery.js';
import { InboundHub } from './inbound.js';
import { messageRoutes } from './messages.js';
import { MtQueues } from './queue.js';
import { ConversationSettings } from './settings.js';
import { SendStats } from './stats.js';
import { ConversationStore } from './store.js';
import { Timers } from '../../core/timers.js';
import { ChannelTemplates } from './templates.js';
import { webhookRoutes } from './webhooks.js';

export const conversationArea: SandboxArea = {
  name: 'conversation',
  setup(ctx) {
    const timers = new Timers();
    const store = new ConversationStore();
    const settings = new ConversationSettings(ctx.options.rateLimits.perProjectPerSecond);
    const hub = ctx.callbackHub({
      area: 'conversation',
      timers,
      reorder: 'each',
      retry: () => ({ retrySchedule: settings.retry.scheduleMs, timeoutMs: settings.retry.timeoutMs }),
    });
    const reports = new ReportHub(store, settings, timers, hub);
    // Replies (a phone that answers STOP, START or anything): sent on the same hub, with the same webhook faults.
    const inbound = new InboundHub(store, hub);
    // The drain rate is read at every step, so a rate set by a control route applies at once.
    const queues = new MtQueues(
      timers,
      (appId) => store.app(appId)?.outboundRate ?? 1,
      (m) => reports.onDrained(m),
    );
    const stats = new SendStats();
    // The chat channels' templates: the provisioning area's approved ones, and those a test handed over (these
    // are not kept across restarts: the test hands them over again).
    const templates = new ChannelTemplates(() => ctx.links.read(approvedChannelTemplates));
    const deps: ConversationDeps = { ctx, store, settings, queues, reports, inbound, stats, templates };
    ctx.links.provide(bundleConversationApps, (a) => {
      if (!store.app(a.id)) store.addApp({ ...a, channelCredentials: [], outboundRate: DEFAULT_OUTBOUND_RATE, createdAt: new Date().toISOString() });
    });
    // Kept across restarts: apps, contacts, conversations, messages (those not yet sent are queued again, those
    // on the channel get their final report when due), webhooks and the send counts. The settings are the run's
    // test knobs (limits, outcomes, faults) and start afresh, as do the report counts and deliveries in flight.
    ctx.own({
      parts: [timers, queues, hub, reports, inbound, store, settings, stats, templates],
      kept: {
        name: 'conversation',
        parts: { store: store.kept, stats },
        resume: () => {
          for (const m of store.allMessages()) if (m.status === 'ACCEPTED') queues.enqueue(m);
          reports.resumeFinals(store.allMessages());
        },
      },
    });
    return {
      routes: async (app, mount) => {
        const region = regionOf(mount.region);
        await app.register(appRoutes(deps, region));
        await app.register(messageRoutes(deps, region));
        await app.register(webhookRoutes(deps, region));
      },
      control: (app) => conversationControlRoutes(app, deps),
    };
  },
};
