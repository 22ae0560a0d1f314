// Area G, provisioning (docs/provisioning-wire.md): webhooks, CHATA and CHATB templates, RCS,
// CHATA and CHATB senders, decided by simulated reviewers that emit signed webhook events; bundles
// (docs/bundle-wire.md), provisioned after a delay.
import type { SandboxArea } from '../../core/area.js';
import { approvedChannelTemplates } from '../channel-templates-link.js';
import { approvedTemplateReader } from './approved-templates.js';
import { BundleDesk, bundleControlRoutes, bundleRoutes } from './bundles.js';
import { chataAccountRoutes } from './chata-account.js';
import { chataSenderRoutes } from './chata-senders.js';
import { chatbSenderRoutes } from './chatb-senders.js';
import type { ProvisioningDeps } from './context.js';
import { provisioningControlRoutes } from './control.js';
import { WebhookEvents, type EventRecord } from './delivery.js';
import { installProvisioningErrors } from './errors.js';
import { rcsRoutes } from './rcs.js';
import { Reviewer, startupReviewer } from './reviewer.js';
import { ProvisioningStore } from './store.js';
import { templateChannels, templateRoutes } from './templates.js';
import { keptTogether } from '../../core/kept.js';
import { webhookRoutes } from './webhooks.js';

export const provisioningArea: SandboxArea = {
  name: 'provisioning',
  setup(ctx) {
    const { jobs, callbacks } = ctx.resourceEvents<EventRecord>('provisioning');
    const store = new ProvisioningStore();
    const reviewer = new Reviewer(startupReviewer(ctx.options.provisioningReviewer), jobs);
    const hub = new WebhookEvents(store, callbacks);
    const deps: ProvisioningDeps = { ctx, store, hub, reviewer };
    ctx.links.provide(approvedChannelTemplates, approvedTemplateReader(store));
    const bundles = new BundleDesk(deps, jobs);
    // Built here, once: each registers its reviews' due-job handler, which a restore needs before it loads.
    const routeSets = [
      webhookRoutes(deps),
      ...templateChannels(deps).map((channel) => templateRoutes(deps, channel)),
      rcsRoutes(deps),
      chataSenderRoutes(deps),
      chataAccountRoutes(deps),
      chatbSenderRoutes(deps),
      bundleRoutes(deps, bundles),
    ];
    // Kept across restarts: the resources, the event log and sequences, pending reviews and bundle ends. The
    // reviewer, bundle, fault and envelope settings are the run's test knobs: they start from the options again.
    ctx.own({ parts: [store, hub, reviewer, bundles], kept: { name: 'provisioning', parts: { store: keptTogether(store.kept), hub: hub.kept, jobs } } });
    return {
      routes: async (app) => {
        installProvisioningErrors(app);
        for (const routes of routeSets) await app.register(routes);
      },
      control: (app) => {
        provisioningControlRoutes(app, deps);
        bundleControlRoutes(app, deps, bundles);
      },
    };
  },
};
