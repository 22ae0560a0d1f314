// Area F, sender ID registrations (docs/senderid-wire.md): markets, policies and templates,
// registrations with attachments, callback configuration, a simulated review with configurable
// timing, and signed callbacks with injectable faults (control routes under /_sandbox/senderid).
import type { SandboxArea } from '../../core/area.js';
import { attachmentRoutes } from './attachments.js';
import { callbackConfigRoutes } from './callback-config.js';
import type { SenderIdDeps } from './context.js';
import { senderIdControlRoutes } from './control.js';
import { SenderIdCallbacks, type EventRecord } from './delivery.js';
import { marketRoutes } from './markets.js';
import { registrationRoutes } from './registrations.js';
import { Reviewer } from './review.js';
import { SenderIdStore } from './store.js';
import { keptTogether } from '../../core/kept.js';

export const senderIdArea: SandboxArea = {
  name: 'senderid',
  setup(ctx) {
    const { jobs, callbacks } = ctx.resourceEvents<EventRecord>('senderid');
    const store = new SenderIdStore();
    const hub = new SenderIdCallbacks(store, callbacks);
    const reviewer = new Reviewer(store, hub, jobs);
    const deps: SenderIdDeps = { ctx, store, hub, reviewer };
    // Kept across restarts: registrations, callback configurations and URL, the callback log, the review's
    // pending steps and uploads. The reviewer settings and callback faults start afresh.
    ctx.own({
      parts: [store, hub, reviewer],
      kept: { name: 'senderid', parts: { store: keptTogether(store.kept), hub: hub.kept, review: reviewer.kept, jobs } },
    });
    return {
      routes: async (app) => {
        await app.register(marketRoutes(deps));
        await app.register(registrationRoutes(deps));
        await app.register(attachmentRoutes(deps));
        await app.register(callbackConfigRoutes(deps));
      },
      control: (app) => senderIdControlRoutes(app, deps),
    };
  },
};
