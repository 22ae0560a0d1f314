// Provisioning (area G): template, sender and bundle processes, and what the platform reported per resource.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ResourceLinkStore } from '../../../store/resource-links.js';
import type { ProvisioningRouteOptions } from './common.js';
import { provisioningBundleRoutes } from './bundles.js';
import { resourceEventRoutes } from './resource-events.js';
import { provisioningSenderRoutes } from './senders.js';
import { provisioningTemplateRoutes } from './template-approval.js';

/** `links`: which processes follow a resource (the store's), read by the resource events route. */
export const provisioningRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions & { links?: ResourceLinkStore | undefined }> = async (app, opts) => {
  await app.register(provisioningTemplateRoutes, opts);
  await app.register(provisioningSenderRoutes, opts);
  await app.register(provisioningBundleRoutes, opts);
  await app.register(resourceEventRoutes, { client: opts.client, processes: opts.processes, links: opts.links });
};
