// Area F, sender ID registrations (docs/senderid-wire.md): markets, policies and templates,
// registrations with attachments, callback configuration, a simulated review with configurable
// timing, and signed callbacks with injectable faults (control routes under /_sandbox/senderid).
import type { SandboxArea } from '../../core/area.js';
import { attachmentRoutes } from './attachments.js';
import { callbackConfigRoutes } from './callback-config.js';
import type { SenderIdDeps } from './context.js';
import { senderIdControlRoutes } from './control.js';
import { CallbackHub } from './delivery.js';
import { marketRoutes } from './markets.js';
import { registrationRoutes } from './registrations.js';
import { Reviewer, type SavedReview } from './review.js';
import { SenderIdStore } from './store.js';
import { DueJobs, type DueJob } from '../../core/due-jobs.js';
import { Timers } from '../../core/timers.js';

export const senderIdArea: SandboxArea = {
  name: 'senderid',
  setup(ctx) {
    const timers = new Timers();
    const jobs = new DueJobs(timers);
    const store = new SenderIdStore();
    const hub = new CallbackHub(ctx, store, timers);
    const reviewer = new Reviewer(store, hub, jobs);
    const deps: SenderIdDeps = { ctx, store, hub, reviewer };
    ctx.onReset(() => {
      timers.clear();
      jobs.clear();
      store.clear();
      hub.reset();
      reviewer.reset();
    });
    // Kept across restarts: registrations, callback configurations and URL, the callback log, the review's
    // pending steps and uploads. The reviewer settings and callback faults start afresh.
    ctx.persist({
      name: 'senderid',
      save: () => ({ store: store.save(), hub: hub.save(), review: reviewer.save(), jobs: jobs.save() }),
      load: (state) => {
        const saved = state as { store: Parameters<SenderIdStore['load']>[0]; hub: Parameters<CallbackHub['load']>[0]; review: SavedReview; jobs: DueJob[] };
        store.load(saved.store);
        hub.load(saved.hub);
        reviewer.load(saved.review);
        jobs.load(saved.jobs);
      },
    });
    return {
      routes: async (app) => {
        app.addHook('onClose', async () => timers.clear());
        await app.register(marketRoutes(deps));
        await app.register(registrationRoutes(deps));
        await app.register(attachmentRoutes(deps));
        await app.register(callbackConfigRoutes(deps));
      },
      control: (app) => senderIdControlRoutes(app, deps),
    };
  },
};
