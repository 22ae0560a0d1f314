// Sender ID registration (area F): what the API, activities and workflows share. The activity interface
// lives here (workflows proxy it and never import activities/); the workflow's own signals, updates and
// queries join this file with workflows/senderid/. Wire contract: docs/senderid-wire.md.
import type {
  Attachment,
  AttachmentDefinition,
  CallbackConfiguration,
  CreateRegistrationRequest,
  MarketDetails,
  Policy,
  Registration,
  RegistrationListQuery,
  RegistrationPage,
  RegistrationState,
  RegistrationType,
  RequestDetail,
  UpdateRegistrationRequest,
} from '../platform/senderid/types.js';
import type { SenderIdViolation } from '../platform/senderid/errors.js';

export {
  REGISTRATION_STATES as SENDER_ID_REGISTRATION_STATES,
  FINAL_REGISTRATION_STATES as SENDER_ID_FINAL_STATES,
  EDITABLE_REGISTRATION_STATES as SENDER_ID_EDITABLE_STATES,
  isRegistrationState as isSenderIdRegistrationState,
} from '../platform/senderid/types.js';
export type {
  Attachment as SenderIdAttachment,
  AttachmentDefinition as SenderIdAttachmentDefinition,
  CallbackConfiguration as SenderIdCallbackConfiguration,
  MarketDetails as SenderIdMarketDetails,
  Policy as SenderIdPolicy,
  Registration as SenderIdRegistration,
  RegistrationState as SenderIdRegistrationState,
  RegistrationType as SenderIdRegistrationType,
  RequestDetail as SenderIdRequestDetail,
  UploadStatus as SenderIdUploadStatus,
  SenderIdCallbackEvent,
} from '../platform/senderid/types.js';
export type { SenderIdViolation } from '../platform/senderid/errors.js';

/**
 * The registration states in the order a process moves through them: a process moves only forward from what
 * it knows (a state of lower rank from an old or repeated callback changes nothing). The platform publishes
 * no transitions; the middle states share a rank because they may follow one another in any order.
 */
export const SENDER_ID_STATE_RANK: Readonly<Record<RegistrationState, number>> = {
  DRAFT: 0,
  IN_QUEUE: 1,
  IN_PROGRESS: 2,
  PENDING: 2,
  ON_HOLD: 2,
  PENDING_APPROVAL: 2,
  PENDING_ATTACHMENTS: 2,
  APPROVED: 3,
  REJECTED: 3,
};

/** The failure type of a registration (or upload) refused by relayflow's own check or by the platform: its details carry the violations. */
export const SENDER_ID_VALIDATION_FAILURE = 'PlatformValidationError';

// ---------------------------------------------------------------------------------------------
// Activities: each safe to repeat under Temporal retries (activities/senderid/)
// ---------------------------------------------------------------------------------------------

export interface MarketRequirementsInput {
  marketCode: string;
  /** The platform's default is ALPHANUMERIC_SENDER_ID. */
  registrationType?: RegistrationType;
}

export interface PolicyRef {
  policyId: string;
}

export interface CheckRegistrationInput {
  policyId: string;
  requestDetails: RequestDetail[];
}

/**
 * The policy, what would be refused (the platform's own `field` + `rule`, [] when nothing), and the attachment
 * definitions: the mandatory ones the process must wait for, and the ones with a template to fill in.
 */
export interface CheckRegistrationResult {
  policy: Policy;
  violations: SenderIdViolation[];
  mandatoryAttachments: AttachmentDefinition[];
  templates: AttachmentDefinition[];
}

export interface TemplateRef {
  policyId: string;
  attachmentDefinitionId: string;
}

/** Bytes travel base64-encoded (payloads are JSON); templates are small documents. */
export interface DownloadedTemplate {
  fileName: string;
  contentType: string;
  contentBase64: string;
  sizeBytes: number;
}

export interface CreateRegistrationInput {
  /**
   * The caller's registration key (the business key of the process, SENDER_ID_KEY_PATTERN): tagged on the
   * platform's registration as `relayflow-key:<key>`, so a retried create finds the one an earlier attempt
   * made instead of making a second.
   */
  registrationKey: string;
  request: CreateRegistrationRequest;
  /** The policy's market and type (from CheckRegistrationResult.policy); read from the policy when absent. */
  marketCode?: string;
  registrationType?: RegistrationType;
}

/** `created: false` when the registration already existed (a retry after a lost answer). */
export type CreateRegistrationResult = Registration & { created: boolean };

export interface RegistrationRef {
  registrationId: string;
}

export interface ListRegistrationsInput {
  query: RegistrationListQuery;
}

export interface UpdateRegistrationInput extends RegistrationRef {
  changes: UpdateRegistrationRequest;
}

/** `updated: false` when the registration already held the changes and the platform refused a second update (409). */
export type UpdateRegistrationResult = Registration & { updated: boolean };

/** `deleted: false` when it was already gone (404): a retry after a lost answer. */
export interface DeleteRegistrationResult {
  deleted: boolean;
}

export interface UploadAttachmentInput extends RegistrationRef {
  /** The policy's attachment definition ID. */
  attachmentDefinitionId: string;
  fileName: string;
  mimeType: string;
  contentBase64: string;
  documentType?: string;
}

/** `uploaded: false` when the platform refused (409, final state) but the registration already holds this file. */
export type UploadAttachmentResult = Attachment & { uploaded: boolean };

export interface SenderIdActivities {
  /** The market's versions and the questions that lead to a policy (the scope). */
  getSenderIdMarketRequirements(input: MarketRequirementsInput): Promise<MarketDetails>;
  getSenderIdPolicyRequirements(input: PolicyRef): Promise<Policy>;
  /** Reads the policy and checks the registration against it as the platform would; sends nothing. */
  checkSenderIdRegistration(input: CheckRegistrationInput): Promise<CheckRegistrationResult>;
  downloadSenderIdTemplate(input: TemplateRef): Promise<DownloadedTemplate>;
  createSenderIdRegistration(input: CreateRegistrationInput): Promise<CreateRegistrationResult>;
  getSenderIdRegistration(input: RegistrationRef): Promise<Registration>;
  /** One page (the API's list); the process state is joined by the API. */
  listSenderIdRegistrations(input: ListRegistrationsInput): Promise<RegistrationPage>;
  updateSenderIdRegistration(input: UpdateRegistrationInput): Promise<UpdateRegistrationResult>;
  deleteSenderIdRegistration(input: RegistrationRef): Promise<DeleteRegistrationResult>;
  /** Checks size and MIME type against the definition before anything is sent (non-retryable failure with violations). */
  uploadSenderIdAttachment(input: UploadAttachmentInput): Promise<UploadAttachmentResult>;
  /** null when the project has none yet. */
  getSenderIdCallbackConfiguration(): Promise<CallbackConfiguration | null>;
  setSenderIdCallbackConfiguration(input: { hmacSecret: string }): Promise<CallbackConfiguration>;
}
