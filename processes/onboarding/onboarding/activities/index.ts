// Customer onboarding activities (processes/onboarding/onboarding/contract.ts): the webhook step, and the compensation that undoes
// a step on cancel. Each is safe to repeat under Temporal retries and maps platform errors through
// shared/failures.ts (a 400 is a non-retryable failure with the error's type; 5xx, timeouts and 429 retry).
import type { Client } from '@temporalio/client';
import type { OnboardingActivities, UndoStepInput } from '../contract.js';
import type { ProvisioningClient } from '../../../../platform/provisioning/client.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import { withFailureMappingAll } from '../../../shared/activities/failures.js';
import { createUndoActivity } from './undo.js';
import { createWebhookActivity } from './webhook.js';

export interface OnboardingDeps {
  provisioning: ProvisioningClient;
  senderid: SenderIdClient;
  /** To read a step's resource ID from its child process when the step never reported it. */
  temporal?: Client | undefined;
}

export function createOnboardingActivities(deps: OnboardingDeps): OnboardingActivities {
  return withFailureMappingAll({
    ...createWebhookActivity(deps.provisioning),
    // In the project the step's resource lives in: the customer's subproject when the plan has one.
    undoStep: (input: UndoStepInput) => createUndoActivity({ ...deps, provisioning: deps.provisioning.forProject(input.projectId) }).undoStep(input),
  });
}
