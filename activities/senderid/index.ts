// Sender ID registration activities (area F) over platform/senderid: requirements, the pre-check, template
// download, registrations and attachments, callback configuration. Each is safe to repeat under Temporal
// retries (how, per activity, below) and maps platform errors through shared/failures.ts: a validation
// refusal (the platform's 400, or relayflow's own pre-check) is a non-retryable PlatformValidationError whose
// details carry the violations; 5xx, timeouts and 429 (with Retry-After) are retried.
import { senderIdKeyTag } from '../../contracts/ids.js';
import type {
  CheckRegistrationInput,
  CheckRegistrationResult,
  CreateRegistrationInput,
  CreateRegistrationResult,
  DeleteRegistrationResult,
  DownloadedTemplate,
  ListRegistrationsInput,
  MarketRequirementsInput,
  PolicyRef,
  RegistrationRef,
  SenderIdActivities,
  TemplateRef,
  UpdateRegistrationInput,
  UpdateRegistrationResult,
  UploadAttachmentInput,
  UploadAttachmentResult,
} from '../../contracts/senderid.js';
import { PlatformConflictError, PlatformNotFoundError, PlatformValidationError } from '../../platform/errors.js';
import type { SenderIdClient } from '../../platform/senderid/client.js';
import type { SenderIdViolation } from '../../platform/senderid/errors.js';
import type { Registration } from '../../platform/senderid/types.js';
import { validateAttachment, validateRequestDetails } from '../../platform/senderid/validate.js';
import { withFailureMappingAll } from '../shared/failures.js';
import { containsSubset, findFirst, findOrCreate } from '../provisioning/lookup.js';

/** relayflow's own refusal, shaped like the platform's 400 so workflows and the API handle one failure type. */
function refused(what: string, violations: SenderIdViolation[]): PlatformValidationError {
  const text = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
  return new PlatformValidationError({ area: 'senderId', code: 'INVALID_ARGUMENT', message: `senderId: ${what} refused by relayflow's check: ${text}`, details: violations });
}

export function createSenderIdActivities(clients: { senderId: SenderIdClient }): SenderIdActivities {
  const { senderId } = clients;

  /**
   * The registration an earlier attempt created for this key: listed by the policy's market and type (the list
   * defaults to ALPHANUMERIC_SENDER_ID, so the type is always given) and matched by relayflow's key tag and
   * policy. Deleted registrations are not listed, so a deleted one is made anew.
   */
  const findByKey = (key: string, policyId: string, marketCode: string, registrationType: Registration['registrationType']) => {
    const tag = senderIdKeyTag(key);
    return findFirst(senderId.listAllRegistrations({ marketCode, registrationType }), (r) => r.policyId === policyId && r.tags.includes(tag));
  };

  return withFailureMappingAll({
    // Reads: repeatable as they are.
    async getSenderIdMarketRequirements(input: MarketRequirementsInput) {
      return senderId.marketRequirements(input);
    },

    async getSenderIdPolicyRequirements(input: PolicyRef) {
      return senderId.policyRequirements(input.policyId);
    },

    async checkSenderIdRegistration(input: CheckRegistrationInput): Promise<CheckRegistrationResult> {
      const policy = await senderId.policyRequirements(input.policyId);
      return {
        policy,
        violations: validateRequestDetails(policy, input.requestDetails),
        mandatoryAttachments: policy.attachmentDefinitions.filter((d) => d.mandatory),
        templates: policy.attachmentDefinitions.filter((d) => d.template),
      };
    },

    async downloadSenderIdTemplate(input: TemplateRef): Promise<DownloadedTemplate> {
      const file = await senderId.downloadTemplate(input.policyId, input.attachmentDefinitionId);
      return { fileName: file.fileName, contentType: file.contentType, contentBase64: file.content.toString('base64'), sizeBytes: file.content.length };
    },

    /**
     * Idempotent by the caller's registration key: the request is sent with the tag `relayflow-key:<key>`, and
     * every attempt first lists the market's registrations of that type for one with the tag (and policy). A
     * retry after a lost answer finds the registration the earlier attempt made (`created: false`) instead
     * of making a second. (The platform has no client reference field and no 409 for a duplicate, so the
     * tag is the only link; two attempts running at once could both create, which Temporal's one-attempt-at-
     * a-time retries do not do.)
     */
    async createSenderIdRegistration(input: CreateRegistrationInput): Promise<CreateRegistrationResult> {
      const { registrationKey, request } = input;
      let { marketCode, registrationType } = input;
      if (marketCode === undefined || registrationType === undefined) {
        const policy = await senderId.policyRequirements(request.policyId);
        marketCode = policy.marketCode;
        registrationType = policy.registrationType;
      }
      const tag = senderIdKeyTag(registrationKey);
      const tags = [...(request.tags ?? []).filter((t) => t !== tag), tag];
      const market = marketCode;
      const type = registrationType;
      return findOrCreate(
        () => findByKey(registrationKey, request.policyId, market, type),
        () => senderId.createRegistration({ ...request, tags }),
      );
    },

    async getSenderIdRegistration(input: RegistrationRef) {
      return senderId.getRegistration(input.registrationId);
    },

    async listSenderIdRegistrations(input: ListRegistrationsInput) {
      return senderId.listRegistrations(input.query);
    },

    /**
     * A PUT sets the given fields, so repeating it sets them again. But an update can send the registration back
     * to review (PENDING → IN_PROGRESS), after which a repeat gets 409: then the registration is read, and if it
     * already holds the changes the earlier attempt went through (`updated: false`); otherwise the 409 stands.
     */
    async updateSenderIdRegistration(input: UpdateRegistrationInput): Promise<UpdateRegistrationResult> {
      try {
        return { ...(await senderId.updateRegistration(input.registrationId, input.changes)), updated: true };
      } catch (err) {
        if (!(err instanceof PlatformConflictError)) throw err;
        const current = await senderId.getRegistration(input.registrationId);
        if (!containsSubset(current, normalisedChanges(input.changes))) throw err;
        return { ...current, updated: false };
      }
    },

    /** A repeat after a lost answer gets 404: the registration is gone either way (`deleted: false`). */
    async deleteSenderIdRegistration(input: RegistrationRef): Promise<DeleteRegistrationResult> {
      try {
        await senderId.deleteRegistration(input.registrationId);
        return { deleted: true };
      } catch (err) {
        if (err instanceof PlatformNotFoundError) return { deleted: false };
        throw err;
      }
    },

    /**
     * Checked against the definition first (MIME type, size; an unknown definition is refused as the platform
     * would with a 404). An upload replaces the earlier one of the same definition, so a repeat leaves the
     * same single file. When a repeat is refused because the registration reached a final state meanwhile
     * (409) and it already holds this file, the earlier attempt counts (`uploaded: false`).
     */
    async uploadSenderIdAttachment(input: UploadAttachmentInput): Promise<UploadAttachmentResult> {
      const content = Buffer.from(input.contentBase64, 'base64');
      const registration = await senderId.getRegistration(input.registrationId);
      const policy = await senderId.policyRequirements(registration.policyId);
      const def = policy.attachmentDefinitions.find((d) => d.id === input.attachmentDefinitionId);
      if (!def) {
        throw new PlatformNotFoundError({ area: 'senderId', code: 'NOT_FOUND', message: `senderId: attachment definition ${input.attachmentDefinitionId} is not part of policy ${policy.id}` });
      }
      const violations = validateAttachment(def, { mimeType: input.mimeType, sizeBytes: content.length });
      if (violations.length) throw refused('attachment', violations);
      try {
        const attachment = await senderId.uploadAttachment(input.registrationId, input.attachmentDefinitionId, {
          fileName: input.fileName,
          mimeType: input.mimeType,
          content,
          ...(input.documentType === undefined ? {} : { documentType: input.documentType }),
        });
        return { ...attachment, uploaded: true };
      } catch (err) {
        if (!(err instanceof PlatformConflictError)) throw err;
        const current = await senderId.getRegistration(input.registrationId);
        const held = current.attachments.find(
          (a) => a.attachmentDefinitionId === input.attachmentDefinitionId && a.fileName === input.fileName && a.mimeType === input.mimeType && a.uploadStatus !== 'FAILED',
        );
        if (!held) throw err;
        return { ...held, uploaded: false };
      }
    },

    async getSenderIdCallbackConfiguration() {
      return (await senderId.getCallbackConfiguration()) ?? null;
    },

    /** A PUT of the same secret is harmless: repeatable as it is. */
    async setSenderIdCallbackConfiguration(input: { hmacSecret: string }) {
      return senderId.setCallbackConfiguration(input.hmacSecret);
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
