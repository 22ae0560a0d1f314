// A running onboarding's operations: add steps (checked against the steps it has), retry, skip, cancel. Each
// is an update with the caller's Idempotency-Key as its operation ID, answered through api/processes/update.ts.
import Type from 'typebox';
import { addStepsUpdate, cancelOnboardingUpdate, retryStepUpdate, skipStepUpdate, type OnboardingDetails, type RetryStepRequest } from '../contract.js';
import { ApiError, invalid } from '../../../../api/errors.js';
import { PLATFORM_STATUSES } from '../../../../api/platform-errors.js';
import { ProcessId, ReasonBody } from '../../../../api/schemas.js';
import { reasonAction, type ProcessRouter } from '../../../../api/routes/process-routes.js';
import { acceptedOrThrow } from '../../../provisioning/routes/common.js';
import { contactErrors, launchContact } from '../../../provisioning/routes/inputs.js';
import { componentErrors } from '../../../provisioning/routes/schemas.js';
import { KIND, type OnboardingRouteOptions } from './common.js';
import { readLookups } from './lookups.js';
import { buildAddedSteps, type KnownStep } from './plan.js';
import { AddSteps, RetryBody, StepName } from './schemas.js';

const OnStep = Type.Object({ processId: ProcessId, step: StepName() });
const UPDATE_ERRORS = [400, 401, 404, 409, 422];

/** Declares the step operations on the onboardings' router. */
export function onboardingStepActions(onboardings: ProcessRouter, opts: OnboardingRouteOptions): void {
  const { processes, config, hashSubject } = opts;
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

  onboardings.action({
    action: 'steps',
    operationId: 'addOnboardingSteps',
    summary: 'Add senders, templates and sender IDs to a running onboarding (names unique among its steps; a template may name an existing sender step)',
    body: AddSteps,
    // The sender ID policies are read from the platform first (api/platform-errors.ts).
    errors: [...UPDATE_ERRORS, ...PLATFORM_STATUSES],
    update: addStepsUpdate,
    request: async (req, operationId) => {
      const existing = await currentSteps(req.params.processId);
      const lookups = await readLookups(req.body, { provisioning: opts.provisioning, senderid: opts.senderid, log: req.log });
      // With an Idempotency-Key, steps just like existing ones may be this request again: the process answers it.
      const plan = buildAddedSteps(req.body, { projectId, config, hashSubject, lookups }, existing, req.headers['idempotency-key'] !== undefined);
      if (plan.errors.length) throw invalid(plan.errors);
      return { operationId, steps: plan.steps };
    },
    answer: acceptedOrThrow,
  });

  onboardings.action({
    action: 'steps/:step/retry',
    operationId: 'retryOnboardingStep',
    summary: 'Retry a FAILED step (a REJECTED template with resubmit, a rejected RCS sender with relaunch); the steps blocked by it run again',
    params: OnStep,
    body: RetryBody,
    optionalBody: true,
    errors: UPDATE_ERRORS,
    update: retryStepUpdate,
    request: (req, operationId): RetryStepRequest => {
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
      return {
        operationId,
        step: req.params.step,
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
    },
    answer: acceptedOrThrow,
  });

  onboardings.action({
    action: 'steps/:step/skip',
    operationId: 'skipOnboardingStep',
    summary: 'Skip a step (the steps that cannot run without it are skipped too; the others go on)',
    params: OnStep,
    body: ReasonBody,
    optionalBody: true,
    errors: UPDATE_ERRORS,
    update: skipStepUpdate,
    request: (req, operationId) => {
      const reason = req.body?.reason;
      return { operationId, step: req.params.step, ...(reason ? { reason } : {}) };
    },
    answer: acceptedOrThrow,
  });

  onboardings.action({
    ...reasonAction({
      action: 'cancel',
      summary: 'Cancel the onboarding: running steps are stopped and what they made is undone in reverse order where the platform allows it',
      update: cancelOnboardingUpdate,
      answer: acceptedOrThrow,
    }),
    errors: UPDATE_ERRORS,
  });
}
