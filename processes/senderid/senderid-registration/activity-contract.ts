// Sender ID registration (area F): what the API, activities and workflows share. The activity interface
// lives here (workflows proxy it and never import activities); the workflow's own signals, updates and
// queries join this file with processes/senderid/senderid-registration/workflow/. Wire contract: docs/senderid-wire.md.
import type {
  AttachmentDefinition,
  CreateRegistrationRequest,
  Policy,
  Registration,
  RegistrationType,
  RequestDetail,
  UpdateRegistrationRequest,
} from '../../../common/wire/senderid.js';
import type { SenderIdViolation } from '../../../platform/senderid/errors.js';
import type { SenderIdCallbackHint, SenderIdCallbackRelayInput } from './contract.js';

export type { Registration as SenderIdRegistration } from '../../../common/wire/senderid.js';

// ---------------------------------------------------------------------------------------------
// Activities: each safe to repeat under Temporal retries (processes/senderid/senderid-registration/activities/)
// ---------------------------------------------------------------------------------------------

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

export interface CreateRegistrationInput {
  /**
   * The caller's registration key (the business key of the process: 1..64 of [A-Za-z0-9._-]): tagged on the
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

export interface UpdateRegistrationInput extends RegistrationRef {
  changes: UpdateRegistrationRequest;
}

/** `updated: false` when the registration already held the changes and the platform refused a second update (409). */
export type UpdateRegistrationResult = Registration & { updated: boolean };

/** `deleted: false` when it was already gone (404): a retry after a lost answer. */
export interface DeleteRegistrationResult {
  deleted: boolean;
}

export interface RelayCallbacksInput {
  relay: SenderIdCallbackRelayInput;
  hints: SenderIdCallbackHint[];
}

/**
 * Where the relay's hints went: `signalled` the process whose key the registration is tagged with, `adopted` the
 * process under `reg-<registrationId>` (started when not running), `process-ended` none (the tagged one has ended),
 * `registration-gone` none (the platform no longer has it).
 */
export interface RelayCallbacksResult {
  outcome: 'signalled' | 'adopted' | 'process-ended' | 'registration-gone';
  processId?: string;
}

export interface SenderIdActivities {
  getSenderIdPolicyRequirements(input: PolicyRef): Promise<Policy>;
  /** Reads the policy and checks the registration against it as the platform would; sends nothing. */
  checkSenderIdRegistration(input: CheckRegistrationInput): Promise<CheckRegistrationResult>;
  createSenderIdRegistration(input: CreateRegistrationInput): Promise<CreateRegistrationResult>;
  getSenderIdRegistration(input: RegistrationRef): Promise<Registration>;
  updateSenderIdRegistration(input: UpdateRegistrationInput): Promise<UpdateRegistrationResult>;
  deleteSenderIdRegistration(input: RegistrationRef): Promise<DeleteRegistrationResult>;
  /** The callback relay's one step: read whose registration it is, then signal (or signal-with-start) that process. */
  relaySenderIdCallbacks(input: RelayCallbacksInput): Promise<RelayCallbacksResult>;
}
