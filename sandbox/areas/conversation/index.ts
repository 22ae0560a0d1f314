// Area D, conversation messaging (docs/conversation-wire.md), mounted once per region with one shared
// state: apps that answer only on their region, messages:send with the platform's validation and
// limits, per-app MT queues drained at the outbound rate into signed delivery reports, webhooks, and
// control routes under /_sandbox/conversation for outcomes, faults and the counts tests rely on.
import type { SandboxArea } from '../../core/area.js';
import { appRoutes } from './apps.js';
import { regionOf, type ConversationDeps } from './context.js';
import { conversationControlRoutes } from './control.js';
import { ReportHub } from './delivery.js';
import { messageRoutes } from './messages.js';
import { MtQueues } from './queue.js';
import { ConversationSettings } from './settings.js';
import { SendStats } from './stats.js';
import { ConversationStore, type SavedConversationStore } from './store.js';
import { Timers } from '../../core/timers.js';
import { webhookRoutes } from './webhooks.js';

export const conversationArea: SandboxArea = {
  name: 'conversation',
  setup(ctx) {
    const timers = new Timers();
    const store = new ConversationStore();
    const settings = new ConversationSettings(ctx.options.rateLimits.perProjectPerSecond);
    const reports = new ReportHub(ctx, store, settings, timers);
    // The drain rate is read at every step, so a rate set by a control route applies at once.
    const queues = new MtQueues(
      timers,
      (appId) => store.app(appId)?.outboundRate ?? 1,
      (m) => reports.onDrained(m),
    );
    const stats = new SendStats();
    const deps: ConversationDeps = { ctx, store, settings, queues, reports, stats };
    ctx.onReset(() => {
      timers.clear();
      queues.clear();
      reports.reset();
      store.clear();
      settings.reset();
      stats.clear();
    });
    // Kept across restarts: apps, contacts, conversations, messages (those not yet sent are queued again, those
    // on the channel get their final report when due), webhooks and the send counts. The settings are the run's
    // test knobs (limits, outcomes, faults) and start afresh, as do the report counts and deliveries in flight.
    ctx.persist({
      name: 'conversation',
      save: () => ({ store: store.save(), stats: stats.save() }),
      load: (state) => {
        const saved = state as { store: SavedConversationStore; stats: Parameters<SendStats['load']>[0] };
        store.load(saved.store);
        stats.load(saved.stats);
        for (const m of store.allMessages()) if (m.status === 'ACCEPTED') queues.enqueue(m);
        reports.resumeFinals(store.allMessages());
      },
    });
    let closing = false;
    return {
      routes: async (app, mount) => {
        const region = regionOf(mount.region);
        // Three mounts share the state: the first to close stops the timers.
        app.addHook('onClose', async () => {
          if (closing) return;
          closing = true;
          timers.clear();
          queues.clear();
          reports.reset();
        });
        await app.register(appRoutes(deps, region));
        await app.register(messageRoutes(deps, region));
        await app.register(webhookRoutes(deps, region));
      },
      control: (app) => conversationControlRoutes(app, deps),
    };
  },
};
