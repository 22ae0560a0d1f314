// Customer onboarding: start one by the caller's key with a whole plan (validated whole, every child's input
// built here), read and list them; the step operations are in steps.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workflowIds } from '../../../kinds.js';
import type { OnboardingDetails, OnboardingInput } from '../contract.js';
import { ApiError } from '../../../../api/errors.js';
import { PLATFORM_STATUSES } from '../../../../api/platform-errors.js';
import { processRouter } from '../../../../api/routes/process-routes.js';
import { KIND, type OnboardingRouteOptions } from './common.js';
import { readLookups } from './lookups.js';
import { buildOnboardingPlan, planHash } from './plan.js';
import { StartOnboarding } from './schemas.js';
import { onboardingStepActions } from './steps.js';

export const onboardingRoutes: FastifyPluginAsyncTypebox<OnboardingRouteOptions> = async (app, opts) => {
  const { client, processes, config, hashSubject } = opts;
  const projectId = config.platform.credentials.projectId;
  const onboardings = processRouter(app, { client, processes, taskQueue: config.taskQueue }, '/v1/onboardings', 'onboarding');

  /** An onboarding that already holds the key: the same plan is the same request again; another is a 409. */
  async function samePlanOrThrow(processId: string, key: string, hash: string): Promise<void> {
    const view = await processes.get(processId, KIND);
    const existing = (view.details as Partial<OnboardingDetails>).planHash;
    if (typeof existing !== 'string') {
      throw new ApiError(
        503,
        'unavailable',
        `the onboarding ${processId} did not say in time which plan it runs; retry`,
        [{ field: 'processId', rule: 'unavailable', message: processId }],
        5_000,
      );
    }
    if (existing !== hash) {
      const message = `already names another plan (${processId}): use a new key for a new plan, or add steps to it with POST ${onboardings.self(processId)}/steps`;
      throw new ApiError(409, 'key_in_use', `the key ${key} ${message}`, [{ field: 'body.key', rule: 'key_in_use', message }]);
    }
  }

  onboardings.start({
    summary: 'Onboard a customer: subproject, bundle, webhook, senders, templates and sender IDs, run in dependency order as one process',
    body: StartOnboarding,
    // The sender ID policies are read from the platform first (api/platform-errors.ts).
    errors: [400, 401, ...PLATFORM_STATUSES],
    build: async ({ body: b, log }) => {
      const lookups = await readLookups(b, { provisioning: opts.provisioning, senderid: opts.senderid, log });
      const plan = buildOnboardingPlan(b, { projectId, config, hashSubject, lookups });
      const input: OnboardingInput = { projectId, key: b.key, planHash: planHash(b), steps: plan.steps };
      return { errors: plan.errors, kind: KIND, processId: workflowIds.onboarding(projectId, b.key), input };
    },
    // One run per key, ever: a later request is answered by that run (ended or not), never a second one.
    reuse: 'never',
    initialState: 'RUNNING',
    existing: ({ processId, input }) => samePlanOrThrow(processId, input.key, input.planHash),
  });

  onboardings.list({ summary: () => 'List onboarding processes, optionally by state (RUNNING, WAITING_FOR_CALLER, COMPLETED, CANCELLING, CANCELLED)' });

  onboardings.read({
    summary: "An onboarding process: state, history, and in details.steps each step's state, reason, child process, resource IDs, attempts and compensation",
  });

  onboardingStepActions(onboardings, opts);
};
