// A running onboarding's operations: add steps (checked against the steps it has), retry, skip, cancel. Each
// is an update with the caller's Idempotency-Key as its operation ID, answered through api/processes/update.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  addStepsUpdate,
  cancelOnboardingUpdate,
  retryStepUpdate,
  skipStepUpdate,
  type OnboardingDetails,
  type RetryStepRequest,
} from '../../../contracts/onboarding.js';
import { ApiError, errorResponses, invalid } from '../../errors.js';
import { PLATFORM_STATUSES } from '../../platform-errors.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../../processes/update.js';
import { Outcome, ProcessId, ReasonBody } from '../../schemas.js';
import { acceptedOrThrow } from '../provisioning/common.js';
import { contactErrors, launchContact } from '../provisioning/inputs.js';
import { componentErrors } from '../provisioning/schemas.js';
import { KIND, type OnboardingRouteOptions } from './common.js';
import { readLookups } from './lookups.js';
import { buildAddedSteps, type KnownStep } from './plan.js';
import { AddSteps, RetryBody, StepName } from './schemas.js';

const what = 'onboarding';
const OnProcess = Type.Object({ processId: ProcessId });
const OnStep = Type.Object({ processId: ProcessId, step: StepName() });
const updateResponses = { 200: Outcome, ...errorResponses(400, 401, 404, 409, 422) };

export const onboardingStepRoutes: FastifyPluginAsyncTypebox<OnboardingRouteOptions> = async (app, opts) => {
  const { client, processes, config, hashSubject } = opts;
  const projectId = config.platform.credentials.projectId;

  /** The steps the running onboarding has, as it reports them; 409 once it has ended. */
  async function currentSteps(processId: string): Promise<KnownStep[]> {
    const view = await processes.get(processId, KIND);
    if (view.execution.status !== 'RUNNING') throw new ApiError(409, 'process_ended', `the onboarding process ${processId} has already ended (${view.state})`);
    const steps = (view.details as Partial<OnboardingDetails>).steps;
    if (!Array.isArray(steps)) {
      throw new ApiError(
        503,
        'unavailable',
        `the onboarding ${processId} did not report its steps in time; retry`,
        [{ field: 'processId', rule: 'unavailable', message: processId }],
        5_000,
      );
    }
    return steps.map((s) => ({ name: s.name, kind: s.kind, ...(s.processId ? { processId: s.processId } : {}) }));
  }

  app.post(
    '/v1/onboardings/:processId/steps',
    {
      schema: {
        tags: ['onboardings'],
        summary: 'Add senders, templates and sender IDs to a running onboarding (names unique among its steps; a template may name an existing sender step)',
        params: OnProcess,
        headers: IdempotencyKey,
        body: AddSteps,
        // The sender ID policies are read from the platform first (api/platform-errors.ts).
        response: { ...updateResponses, ...errorResponses(...PLATFORM_STATUSES) },
      },
    },
    async (req) => {
      const { processId } = req.params;
      const handle = handleOf(client, processId, [KIND], what);
      const existing = await currentSteps(processId);
      const lookups = await readLookups(req.body, { provisioning: opts.provisioning, senderid: opts.senderid, log: req.log });
      // With an Idempotency-Key, steps just like existing ones may be this request again: the process answers it.
      const plan = buildAddedSteps(req.body, { projectId, config, hashSubject, lookups }, existing, req.headers['idempotency-key'] !== undefined);
      if (plan.errors.length) throw invalid(plan.errors);
      return acceptedOrThrow(await runUpdate(client, handle, addStepsUpdate, [{ operationId: operationId(req.headers), steps: plan.steps }], { what }));
    },
  );

  app.post(
    '/v1/onboardings/:processId/steps/:step/retry',
    {
      schema: {
        tags: ['onboardings'],
        summary: 'Retry a FAILED step (a REJECTED template with resubmit, a rejected RCS sender with relaunch); the steps blocked by it run again',
        params: OnStep,
        headers: IdempotencyKey,
        body: Type.Optional(RetryBody),
        response: updateResponses,
      },
    },
    async (req) => {
      const { processId, step } = req.params;
      const { resubmit, relaunch } = req.body ?? {};
      const errors = [
        ...(resubmit?.components ? componentErrors(resubmit.components, 'body.resubmit.components') : []),
        ...contactErrors(relaunch?.contact, 'body.relaunch.contact'),
      ];
      if (resubmit && relaunch)
        errors.push({
          field: 'body.relaunch',
          rule: 'exclusive',
          message: 'cannot be given with resubmit: a step is a template (resubmit) or an RCS sender (relaunch)',
        });
      if (errors.length) throw invalid(errors);
      const handle = handleOf(client, processId, [KIND], what);
      const request: RetryStepRequest = {
        operationId: operationId(req.headers),
        step,
        ...(resubmit ? { resubmit } : {}),
        ...(relaunch
          ? {
              relaunch: {
                ...(relaunch.contact ? { contact: launchContact(relaunch.contact) } : {}),
                ...(relaunch.answers ? { answers: relaunch.answers } : {}),
              },
            }
          : {}),
      };
      return acceptedOrThrow(await runUpdate(client, handle, retryStepUpdate, [request], { what }));
    },
  );

  app.post(
    '/v1/onboardings/:processId/steps/:step/skip',
    {
      schema: {
        tags: ['onboardings'],
        summary: 'Skip a step (the steps that cannot run without it are skipped too; the others go on)',
        params: OnStep,
        headers: IdempotencyKey,
        body: Type.Optional(ReasonBody),
        response: updateResponses,
      },
    },
    async (req) => {
      const { processId, step } = req.params;
      const handle = handleOf(client, processId, [KIND], what);
      const reason = req.body?.reason;
      return acceptedOrThrow(
        await runUpdate(client, handle, skipStepUpdate, [{ operationId: operationId(req.headers), step, ...(reason ? { reason } : {}) }], { what }),
      );
    },
  );

  app.post(
    '/v1/onboardings/:processId/cancel',
    {
      schema: {
        tags: ['onboardings'],
        summary: 'Cancel the onboarding: running steps are stopped and what they made is undone in reverse order where the platform allows it',
        params: OnProcess,
        headers: IdempotencyKey,
        body: Type.Optional(ReasonBody),
        response: updateResponses,
      },
    },
    async (req) => {
      const handle = handleOf(client, req.params.processId, [KIND], what);
      const reason = req.body?.reason;
      return acceptedOrThrow(
        await runUpdate(client, handle, cancelOnboardingUpdate, [{ operationId: operationId(req.headers), ...(reason ? { reason } : {}) }], { what }),
      );
    },
  );
};
