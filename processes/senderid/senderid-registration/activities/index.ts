// Sender ID registration activities (area F) over platform/senderid: the policy's requirements, the pre-check,
// creating, reading, updating and deleting a registration (what the registration workflow schedules), and the
// callback relay's step (callback-relay.ts). The API reads markets, templates and lists and uploads attachments
// through the platform client itself. Each is safe to repeat under Temporal retries (how, per activity, below)
// and maps platform errors through shared/failures.ts: a validation refusal (the platform's 400) is a
// non-retryable PlatformValidationError whose details carry the violations; 5xx, timeouts and 429 (with
// Retry-After) are retried.
import type { Client } from '@temporalio/client';
import { senderIdKeyTag } from '../../../../contracts/ids.js';
import { senderIdCallbackRelayId, type SenderIdLinkActivities } from '../contract.js';
import type {
  CheckRegistrationInput,
  CheckRegistrationResult,
  CreateRegistrationInput,
  CreateRegistrationResult,
  DeleteRegistrationResult,
  PolicyRef,
  RegistrationRef,
  SenderIdActivities,
  UpdateRegistrationInput,
  UpdateRegistrationResult,
} from '../activity-contract.js';
import { PlatformConflictError, PlatformNotFoundError } from '../../../../platform/errors.js';
import type { SenderIdClient } from '../../../../platform/senderid/client.js';
import type { ResourceLinkStore } from '../../../../store/resource-links.js';
import type { Registration } from '../../../../common/wire/senderid.js';
import { validateRequestDetails } from '../../../../platform/senderid/validate.js';
import { withFailureMappingAll } from '../../../shared/activities/failures.js';
import { containsSubset, findFirst, findOrCreate } from '../../../../platform/lookup.js';
import { activityProcessId } from '../../../provisioning/activities/resource-link.js';
import { createCallbackRelayActivities } from './callback-relay.js';

/** `temporal`: for the callback relay's signals (callback-relay.ts); the worker passes one. `links`: the registrations' links. */
export function createSenderIdActivities(clients: {
  senderid: SenderIdClient;
  temporal?: Client | undefined;
  links?: ResourceLinkStore | undefined;
}): SenderIdActivities & SenderIdLinkActivities {
  const { senderid } = clients;

  /**
   * The registration an earlier attempt created for this key: listed by the policy's market and type (the list
   * defaults to ALPHANUMERIC_SENDER_ID, so the type is always given) and matched by relayflow's key tag and
   * policy. Deleted registrations are not listed, so a deleted one is made anew.
   */
  const findByKey = (key: string, policyId: string, marketCode: string, registrationType: Registration['registrationType']) => {
    const tag = senderIdKeyTag(key);
    return findFirst(senderid.listAllRegistrations({ marketCode, registrationType }), (r) => r.policyId === policyId && r.tags.includes(tag));
  };

  return withFailureMappingAll({
    ...createCallbackRelayActivities(clients),

    // Reads: repeatable as they are.
    async getSenderIdPolicyRequirements(input: PolicyRef) {
      return senderid.policyRequirements(input.policyId);
    },

    async checkSenderIdRegistration(input: CheckRegistrationInput): Promise<CheckRegistrationResult> {
      const policy = await senderid.policyRequirements(input.policyId);
      return {
        policy,
        violations: validateRequestDetails(policy, input.requestDetails),
        mandatoryAttachments: policy.attachmentDefinitions.filter((d) => d.mandatory),
        templates: policy.attachmentDefinitions.filter((d) => d.template),
      };
    },

    /**
     * Idempotent by the caller's registration key: the request is sent with the tag `relayflow-key:<key>`, and
     * every attempt first lists the market's registrations of that type for one with the tag (and policy). A
     * retry after a lost answer finds the registration the earlier attempt made (`created: false`) instead
     * of making a second. (The platform has no client reference field and no 409 for a duplicate, so the
     * tag is the only link; two attempts running at once could both create, which Temporal's one-attempt-at-
     * a-time retries do not do.) The process running it is linked to the registration before it returns, so the
     * registration's callbacks go straight to it, not through a relay; a retry that finds the registration links
     * again (idempotent). A callback that came before the link goes to the relay, which finds the process by the tag.
     */
    async createSenderIdRegistration(input: CreateRegistrationInput): Promise<CreateRegistrationResult> {
      const processId = activityProcessId();
      const { registrationKey, request } = input;
      let { marketCode, registrationType } = input;
      if (marketCode === undefined || registrationType === undefined) {
        const policy = await senderid.policyRequirements(request.policyId);
        marketCode = policy.marketCode;
        registrationType = policy.registrationType;
      }
      const tag = senderIdKeyTag(registrationKey);
      const tags = [...(request.tags ?? []).filter((t) => t !== tag), tag];
      const market = marketCode;
      const type = registrationType;
      const registration = await findOrCreate(
        () => findByKey(registrationKey, request.policyId, market, type),
        () => senderid.createRegistration({ ...request, tags }),
      );
      if (processId && clients.links) await clients.links.link(senderIdCallbackRelayId(senderid.projectId, registration.id), processId);
      return registration;
    },

    async getSenderIdRegistration(input: RegistrationRef) {
      return senderid.getRegistration(input.registrationId);
    },

    /**
     * A PUT sets the given fields, so repeating it sets them again. But an update can send the registration back
     * to review (PENDING → IN_PROGRESS), after which a repeat gets 409: then the registration is read, and if it
     * already holds the changes the earlier attempt went through (`updated: false`); otherwise the 409 stands.
     */
    async updateSenderIdRegistration(input: UpdateRegistrationInput): Promise<UpdateRegistrationResult> {
      try {
        return { ...(await senderid.updateRegistration(input.registrationId, input.changes)), updated: true };
      } catch (err) {
        if (!(err instanceof PlatformConflictError)) throw err;
        const current = await senderid.getRegistration(input.registrationId);
        if (!containsSubset(current, normalisedChanges(input.changes))) throw err;
        return { ...current, updated: false };
      }
    },

    /** A repeat after a lost answer gets 404: the registration is gone either way (`deleted: false`). */
    async deleteSenderIdRegistration(input: RegistrationRef): Promise<DeleteRegistrationResult> {
      try {
        await senderid.deleteRegistration(input.registrationId);
        return { deleted: true };
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { deleted: false };
        throw err;
      }
    },
  });
}

/** What a registration shows after an update: requestDetails with both sections (the platform fills in []). */
function normalisedChanges(changes: UpdateRegistrationInput['changes']): Record<string, unknown> {
  const out: Record<string, unknown> = { ...changes };
  if (changes.requestDetails) {
    out.requestDetails = changes.requestDetails.map((d) => ({ senderIdDetails: d.senderIdDetails ?? [], additionalDetails: d.additionalDetails ?? [] }));
  }
  return out;
}
