// Area G, provisioning (docs/provisioning-wire.md): webhooks, CHATA and CHATB templates, RCS,
// CHATA and CHATB senders, decided by simulated reviewers that emit signed webhook events; bundles
// (docs/bundle-wire.md), provisioned after a delay.
import type { SandboxArea } from '../../core/area.js';
import { BundleDesk, bundleControlRoutes, bundleRoutes } from './bundles.js';
import { chataSenderRoutes } from './chata-senders.js';
import { chatbSenderRoutes } from './chatb-senders.js';
import type { ProvisioningDeps } from './context.js';
import { provisioningControlRoutes } from './control.js';
import { WebhookHub } from './delivery.js';
import { installProvisioningErrors } from './errors.js';
import { rcsRoutes } from './rcs.js';
import { Reviewer, startupReviewer } from './reviewer.js';
import { ProvisioningStore } from './store.js';
import { templateChannels, templateRoutes } from './templates.js';
import { Timers } from '../../core/timers.js';
import { webhookRoutes } from './webhooks.js';

export const provisioningArea: SandboxArea = {
  name: 'provisioning',
  setup(ctx) {
    const timers = new Timers();
    const store = new ProvisioningStore();
    const reviewer = new Reviewer(startupReviewer(ctx.options.provisioningReviewer), timers);
    const hub = new WebhookHub(ctx, store, timers);
    const deps: ProvisioningDeps = { ctx, store, hub, reviewer };
    const bundles = new BundleDesk(deps, timers);
    ctx.onReset(() => {
      timers.clear();
      store.clear();
      hub.reset();
      reviewer.reset();
      bundles.reset();
    });
    return {
      routes: async (app) => {
        installProvisioningErrors(app);
        app.addHook('onClose', async () => timers.clear());
        await app.register(webhookRoutes(deps));
        for (const channel of templateChannels(deps)) await app.register(templateRoutes(deps, channel));
        await app.register(rcsRoutes(deps));
        await app.register(chataSenderRoutes(deps));
        await app.register(chatbSenderRoutes(deps));
        await app.register(bundleRoutes(deps, bundles));
      },
      control: (app) => {
        provisioningControlRoutes(app, deps);
        bundleControlRoutes(app, deps, bundles);
      },
    };
  },
};
