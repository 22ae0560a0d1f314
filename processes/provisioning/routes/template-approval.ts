// CHATA / CHATB template approval: start, read, list, edit and resubmit, delete a pending change, retire, stop watching.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deleteTemplateChangeUpdate, resubmitUpdate, stopUpdate, type OperationOutcome } from '../contract.js';
import { ApiError, invalid } from '../../../api/errors.js';
import { processRouter, reasonAction } from '../../../api/routes/process-routes.js';
import { acceptedOrThrow, inProjectOf, type ProvisioningRouteOptions } from './common.js';
import { retire } from './retire.js';
import { operationId } from '../../../api/processes/update.js';
import { ReasonBody } from '../../../api/schemas.js';
import { templateInput } from './inputs.js';
import { componentErrors, inProject, Resubmit, StartTemplate } from './schemas.js';

const CHANNELS = [
  ['chata', 'CHATA'],
  ['chatb', 'CHATB'],
] as const;

export const provisioningTemplateRoutes: FastifyPluginAsyncTypebox<ProvisioningRouteOptions> = async (app, { client, processes, config, customerProject }) => {
  const projectId = config.platform.credentials.projectId;
  const templates = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/templates', 'template');

  for (const [segment, channel] of CHANNELS) {
    templates.start({
      segment,
      summary: `Create a ${channel} template and follow its approval, then its quality, until it is deleted or you stop watching`,
      body: inProject(StartTemplate),
      // 502: a customer's key names a subproject, read from the platform.
      errors: [400, 401, 422, 502],
      build: ({ body: { projectId: into, ...body } }) => inProjectOf(customerProject, into, () => templateInput(body, 'body', { projectId, config, channel })),
      reuse: 'after-final',
    });
  }

  templates.list({
    summary: (segment) => `List ${segment?.toUpperCase()} template processes, optionally by state (IN_PROGRESS, APPROVED, REJECTED, PAUSED, ...)`,
  });

  templates.read({
    summary: 'A template process: state, history of states with reasons, rejection code, quality score, reviewer comments, webhook events',
  });

  templates.action({
    action: 'resubmit',
    summary:
      'Edit a REJECTED, APPROVED, PAUSED or DISABLED template and send it to review again (an APPROVED, PAUSED or DISABLED one stays in use as it is: the edit waits as its pending change)',
    body: Resubmit,
    errors: [400, 401, 404, 409, 422],
    update: resubmitUpdate,
    request: (req, operationId) => {
      const errors = req.body.components ? componentErrors(req.body.components, 'body.components') : [];
      if (errors.length) throw invalid(errors);
      return { operationId, ...req.body };
    },
    answer: acceptedOrThrow,
  });

  templates.action({
    action: 'delete-change',
    summary: "Delete an APPROVED, PAUSED or DISABLED template's pending change (its edit); the version in use stays. 404 no_pending_changes when it has none",
    errors: [401, 404, 409],
    update: deleteTemplateChangeUpdate,
    request: (_req, operationId) => ({ operationId }),
    answer: (outcome: OperationOutcome) => {
      if (!outcome.accepted && outcome.errorType === 'no_pending_changes')
        throw new ApiError(404, 'no_pending_changes', outcome.reason ?? 'no pending changes exist');
      return acceptedOrThrow(outcome);
    },
  });

  templates.action({
    action: 'retire',
    summary:
      'Retire a template: delete it on the platform (an APPROVED one too, or one under review) and end its process RETIRED. The same Idempotency-Key answers the same after the end; another retire of an ended process is 409',
    body: ReasonBody,
    optionalBody: true,
    errors: [400, 401, 404, 409, 422],
    what: 'template',
    act: async (req, _reply, handle) => {
      const reason = (req.body as { reason?: string } | undefined)?.reason;
      return retire(client, handle, operationId(req.headers), reason, 'template');
    },
  });

  templates.action(
    reasonAction({ action: 'stop', summary: 'Stop watching the template (the template itself stays as it is)', update: stopUpdate, answer: acceptedOrThrow }),
  );
};
