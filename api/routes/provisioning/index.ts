// Provisioning (area G): template, sender and bundle processes, and what the platform reported per resource.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkflowNotFoundError } from '@temporalio/client';
import Type from 'typebox';
import { workflowIds } from '../../../contracts/ids.js';
import { inboxQuery } from '../../../contracts/provisioning.js';
import { errorResponses, notFound } from '../../errors.js';
import type { ProvisioningRouteOptions } from './common.js';
import { provisioningBundleRoutes } from './bundles.js';
import { provisioningSenderRoutes } from './senders.js';
import { provisioningTemplateRoutes } from './template-approval.js';

export const provisioningRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, opts) => {
  await app.register(provisioningTemplateRoutes, opts);
  await app.register(provisioningSenderRoutes, opts);
  await app.register(provisioningBundleRoutes, opts);

  app.get(
    '/v1/provisioning/resources/:channel/:resourceType/:resourceId/events',
    {
      schema: {
        tags: ['provisioning'],
        summary: 'The webhook events received for a platform resource, and the processes they were handed to',
        params: Type.Object({
          channel: Type.Enum(['CHATA', 'CHATB', 'RCS', 'PROJECT']),
          resourceType: Type.Enum(['TEMPLATE', 'SENDER', 'ACCOUNT', 'BUNDLE']),
          resourceId: Type.String({ minLength: 1, maxLength: 512 }),
        }),
        response: { 200: Type.Unknown(), ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const { channel, resourceType, resourceId } = req.params;
      try {
        return await opts.client.workflow.getHandle(workflowIds.resourceInbox(channel, resourceType, resourceId)).query(inboxQuery);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw notFound(`events for ${channel} ${resourceType} ${resourceId}`);
        throw err;
      }
    },
  );
};
