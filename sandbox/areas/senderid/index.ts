// Area F, sender ID registrations (docs/senderid-wire.md): markets, policies and templates,
// registrations with attachments, callback configuration, a simulated review with configurable
// timing, and signed callbacks with injectable faults (control routes under /_sandbox/senderId).
import type { SandboxArea } from '../../core/area.js';
import { attachmentRoutes } from './attachments.js';
import { callbackConfigRoutes } from './callback-config.js';
import type { SenderIdDeps } from './context.js';
import { senderIdControlRoutes } from './control.js';
import { CallbackHub } from './delivery.js';
import { marketRoutes } from './markets.js';
import { registrationRoutes } from './registrations.js';
import { Reviewer } from './review.js';
import { SenderIdStore } from './store.js';
import { Timers } from '../../core/timers.js';

export const senderIdArea: SandboxArea = {
  name: 'senderId',
  setup(ctx) {
    const timers = new Timers();
    const store = new SenderIdStore();
    const hub = new CallbackHub(ctx, store, timers);
    const reviewer = new Reviewer(store, hub, timers);
    const deps: SenderIdDeps = { ctx, store, hub, reviewer };
    ctx.onReset(() => {
      timers.clear();
      store.clear();
      hub.reset();
      reviewer.reset();
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
