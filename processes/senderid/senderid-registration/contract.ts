// The sender ID registration process (area F): what the API, the callback intake and the workflow share.
// Its input, the callback hint signal, the updates from the API and the status view. The platform's
// resource types come from the client; the activities are in processes/senderid/senderid-registration/activity-contract.ts.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Attachment, RegistrationState, RegistrationType, RequestDetail, UploadStatus } from '../../../common/wire/senderid.js';
import type { TrackedCarry } from '../../../contracts/process-status.js';

export type { Attachment, RegistrationState } from '../../../common/wire/senderid.js';

export const SENDERID_REGISTRATION_KIND = 'senderid-registration';

/** The process's states: the platform's, plus relayflow's own before creation and at its end. */
export type SenderIdProcessState = 'VALIDATING' | 'CREATING' | RegistrationState | 'DELETED' | 'STOPPED' | 'FAILED';

interface SenderIdFollowSettings {
  /** Read the registration when no callback has arrived for this long (a dropped callback delays only this much). */
  pollIntervalMs: number;
  /** Report overdue this long after the platform's etaDate passed (0: at once); the process keeps waiting. */
  overdueGraceMs?: number;
  /** Continue-as-new once the history has this many events (besides Temporal's own suggestion); tests set it low. */
  historyLimit?: number;
}

export interface SenderIdRegistrationInput extends SenderIdFollowSettings {
  projectId: string;
  /** The caller's registration key (the process ID's last part; `reg-<registrationId>` for an adopted one). */
  key: string;
  /** Create this registration. Absent: `adopt` names an existing one. */
  create?: {
    policyId: string;
    marketCode: string;
    registrationType: RegistrationType;
    requestDetails: RequestDetail[];
    notificationContacts?: string[];
    tags?: string[];
    /** Where the platform sends this registration's callbacks (RELAYFLOW_PUBLIC_URL + SENDERID_CALLBACK_PATH). */
    callbackUrl?: string;
  };
  /** Follow a registration that exists already (a callback for one relayflow did not know). */
  adopt?: { registrationId: string };
  /** Handed over by continue-as-new. */
  carried?: SenderIdCarry;
}

// ---------------------------------------------------------------------------------------------
// Signals and updates
// ---------------------------------------------------------------------------------------------

/** A platform callback, as the intake checked it: a hint only, the registration read from the platform is the truth. */
export interface SenderIdCallbackHint {
  /** The platform's eventId (a duplicate delivery repeats it): duplicates are dropped. */
  eventId: string;
  eventType: string;
  registrationId: string;
  registrationState?: string;
  message?: string;
  etaDate?: string;
  attachmentId?: string;
  uploadStatus?: string;
  receivedAt: string;
}

export const senderIdCallbackSignal = defineSignal<[SenderIdCallbackHint]>('senderIdCallback');

/**
 * The callback relay (processes/senderid/senderid-registration/workflow/callback-relay.ts), one per registration with no linked process: the intake
 * signals a callback straight to the process linked to its registration (store/resource-links.ts) and hands the
 * others to the relay by signal-with-start (the same signal), then answers 200; the relay reads whose registration
 * it is, with retries, and hands the hints on to that process (or to a new one that adopts the registration).
 */
export interface SenderIdCallbackRelayInput extends Pick<SenderIdFollowSettings, 'pollIntervalMs' | 'overdueGraceMs'> {
  projectId: string;
  registrationId: string;
}

/**
 * The relay's workflow ID, and the registration's name in the resource links. Not a process: no kind, no API
 * collection; Temporal keeps its history.
 */
export const senderIdCallbackRelayId = (projectId: string, registrationId: string) => `senderid-callbacks:${projectId}:${registrationId}`;

export interface LinkRegistrationInput {
  projectId: string;
  registrationId: string;
  processId: string;
}

/** The registration process's link to a registration it adopted (processes/senderid/senderid-registration/activities/callback-relay.ts); the create links its own. */
export interface SenderIdLinkActivities {
  /** `linked: false` on a worker without the store: the callbacks keep going through the relay. Idempotent. */
  linkSenderIdRegistration(input: LinkRegistrationInput): Promise<{ linked: boolean }>;
}

export interface UpdateRegistrationDetailsRequest {
  operationId: string;
  requestDetails?: RequestDetail[];
  notificationContacts?: string[];
}

/** An attachment the API has uploaded to the platform (the bytes never enter Temporal's history). */
export interface AttachmentUploadedRequest {
  operationId: string;
  attachment: Attachment;
}

export interface StopRegistrationRequest {
  operationId: string;
  /** Also delete the registration on the platform (refused once APPROVED). */
  deleteRegistration: boolean;
  reason?: string;
}

export interface SenderIdOperationOutcome {
  accepted: boolean;
  state: string;
  reason?: string;
  /** The failure type when the platform refused (e.g. PlatformValidationError, PlatformConflictError). */
  errorType?: string;
  /** The platform's violations (field, rule, description) when it refused the change. */
  violations?: { field: string; rule: string; description: string }[];
}

export const updateRegistrationUpdate = defineUpdate<SenderIdOperationOutcome, [UpdateRegistrationDetailsRequest]>('updateRegistration');
export const attachmentUploadedUpdate = defineUpdate<SenderIdOperationOutcome, [AttachmentUploadedRequest]>('attachmentUploaded');
export const stopRegistrationUpdate = defineUpdate<SenderIdOperationOutcome, [StopRegistrationRequest]>('stopRegistration');

// ---------------------------------------------------------------------------------------------
// Status view (details of the process status)
// ---------------------------------------------------------------------------------------------

interface AttachmentView {
  attachmentDefinitionId: string;
  attachmentId?: string;
  fileName?: string;
  mimeType?: string;
  uploadStatus?: UploadStatus;
  mandatory?: boolean;
}

interface PlatformLogView {
  at: string;
  state: string;
  message: string;
}

export interface SenderIdRegistrationDetails {
  projectId: string;
  key: string;
  policyId?: string;
  marketCode?: string;
  registrationType?: RegistrationType;
  registrationId?: string;
  /** The registration's state on the platform, as last read. */
  platformState?: RegistrationState;
  /** The requested ID (alphanumeric), or the one the platform assigned (long number, short code). */
  senderId?: string;
  /** `YYYY-MM-DD` from the platform. */
  etaDate?: string;
  logs: PlatformLogView[];
  attachments: AttachmentView[];
  /** Set in PENDING / PENDING_ATTACHMENTS / ON_HOLD: what the platform waits for. */
  missing?: string[];
  overdue: boolean;
  overdueSince?: string;
  adopted: boolean;
  callbacks: number;
  duplicateCallbacks: number;
  reads: number;
  lastReadAt?: string;
  stopReason?: string;
  /** The policy pre-check's violations, when the registration was refused before creation. */
  violations?: { field: string; rule: string; description: string }[];
}

export interface SenderIdCarry extends TrackedCarry<SenderIdProcessState, SenderIdRegistrationDetails, SenderIdOperationOutcome> {
  seenEventIds: string[];
  lastHeardAt: number;
}

export interface SenderIdRegistrationResult {
  state: SenderIdProcessState;
  registrationId?: string;
  senderId?: string;
}
