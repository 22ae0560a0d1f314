// What the API, the webhook intake, the inbox and the provisioning processes share: events, signals,
// updates, inputs and outcomes (area G). Types of the platform's resources come from the client.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ChataAccount,
  ChataSender,
  ChataVerificationMethod,
  ChatbSender,
  CreateChataSenderRequest,
  CreateChatbSenderRequest,
  CreateEmbeddedChataSenderRequest,
  ProvisioningChannel,
  ProvisioningResourceType,
  ProvisioningTrigger,
  ProvisioningWebhookEventDetails,
  RcsTestNumberFeature,
  TemplateCategory,
  TemplateChannel,
  UpdateChataSenderRequest,
  UpdateChatbSenderRequest,
} from '../../common/wire/provisioning.js';
import type { CreateTemplateRequest, Template, TemplateComponent, UpdateTemplateRequest } from '../../platform/provisioning/templates.js';
import type { CreateRcsSenderRequest, RcsLaunchContact, RcsSender, RcsTestNumber, UpdateRcsSenderRequest } from '../../platform/provisioning/rcs-senders.js';
import type { Bundle, CreateBundleRequest } from '../../platform/provisioning/bundles.js';

/** The platform's resource shapes and states the provisioning workflows read (types only). */
export type { Template } from '../../platform/provisioning/templates.js';
export type { RcsCountryStatus, RcsSender } from '../../platform/provisioning/rcs-senders.js';
export type { ChataAccount } from '../../common/wire/provisioning.js';
export type { ChataSenderErrorCode, QualityScore, RcsSenderState, RejectionCode, TemplateCategory, TemplateState } from '../../common/wire/provisioning.js';
export { CHATA_UNVERIFIED_NUMBER_ERRORS } from '../../common/wire/provisioning.js';

/**
 * A provisioning webhook event as the intake normalised it (the signature already checked): the
 * resource it names, and what the platform said about order, if anything.
 */
export interface ProvisioningEvent {
  /** The platform's, or `sha256:<base64url of the raw body>` when it sent none (a redelivery repeats it). */
  eventId: string;
  projectId?: string;
  trigger: ProvisioningTrigger | (string & {});
  channel: ProvisioningChannel;
  resourceType: ProvisioningResourceType;
  resourceId: string;
  /** Absent: the event orders nothing, so it is a hint; a process reads the resource instead of applying it. */
  sequence?: number;
  /** ISO 8601: the platform's time, or the receive time when `timeReceived`. */
  eventTime: string;
  /** Set when the platform gave no eventTime: the time then orders nothing. */
  timeReceived?: true;
  comment?: string;
  details: ProvisioningWebhookEventDetails;
}

/** The platform resource an event names; the key of its inbox. */
export interface ResourceRef {
  channel: ProvisioningChannel;
  resourceType: ProvisioningResourceType;
  resourceId: string;
}

export const resourceOf = (e: Pick<ProvisioningEvent, 'channel' | 'resourceType' | 'resourceId'>): ResourceRef => ({
  channel: e.channel,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
});

/** An event for a resource: from the intake to the process linked to it, else to its inbox, which forwards it. */
export const provisioningEventSignal = defineSignal<[ProvisioningEvent]>('provisioningEvent');
/**
 * A process that follows the resource: the inbox forwards everything it kept, and everything after. `linked`: the
 * process is linked in the store, so the intake signals it directly from now on and the inbox ends once it forwarded
 * what it holds; without it (a worker without the store) the inbox stays the resource's route.
 */
export const attachSignal = defineSignal<[{ processId: string; linked?: boolean }]>('attach');

interface InboxEventView {
  eventId: string;
  trigger: string;
  sequence?: number;
  eventTime: string;
  receivedAt: string;
}

export interface InboxAttachment {
  processId: string;
  attachedAt: string;
  /** How often it attached (a retried attach, or a new run under the same ID). */
  attaches: number;
  /** Receive number of the newest event forwarded to it. */
  forwardedUpTo: number;
  /** Linked in the store: the intake signals it directly (attachSignal). */
  linked?: true;
  /** Set when a forward failed because the process no longer runs. */
  detachedAt?: string;
}

export interface InboxView {
  resource: ResourceRef;
  received: number;
  duplicates: number;
  events: InboxEventView[];
  attached: InboxAttachment[];
}

export const inboxQuery = defineQuery<InboxView>('inbox');

interface KeptEvent {
  /** Receive number: 1, 2, ... over the inbox's whole life. */
  n: number;
  receivedAt: string;
  event: ProvisioningEvent;
}

export interface ResourceInboxInput {
  resource: ResourceRef;
  kept?: KeptEvent[];
  seenEventIds?: string[];
  attached?: InboxAttachment[];
  received?: number;
  duplicates?: number;
  /** Continue-as-new at this history length (besides Temporal's suggestion); tests set it low. */
  historyLimit?: number;
  /**
   * End when nothing is attached (or every attached process has ended) and nothing has arrived for this long
   * (RELAYFLOW_INBOX_IDLE_MS; absent: 30 days). An inbox whose processes are all linked ends as soon as it forwarded.
   */
  idleMs?: number;
}

/** The inbox workflow's signature, for typed starts outside the workflow layer. */
export type ResourceInboxWorkflow = (input: ResourceInboxInput) => Promise<void>;

// ---------------------------------------------------------------------------------------------
// Settings every provisioning process follows its resource with
// ---------------------------------------------------------------------------------------------

export interface FollowSettings {
  /** Read the resource when no event has arrived for this long (a lost webhook delays nothing more). */
  pollIntervalMs: number;
  /** Report the decision overdue after this long under review (the process keeps waiting). */
  overdueAfterMs: number;
  /** Continue-as-new once the history has this many events (besides Temporal's own suggestion). */
  historyLimit?: number;
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/**
 * What every provisioning activity's input may carry besides its own fields: the project the resource lives in, a
 * customer's subproject (used with the parent project's key, spec part E). The workflow adds it (workflow/process.ts).
 */
export interface ActivityInProject {
  projectId?: string;
}

export interface TemplateApprovalInput extends FollowSettings {
  channel: TemplateChannel;
  projectId: string;
  template: {
    name: string;
    language: string;
    category: TemplateCategory;
    components: TemplateComponent[];
    allowCategoryChange?: boolean;
    messageSendTtlSeconds?: number;
  };
  /** Create a DRAFT first, then submit it (the platform checks the draft before review). */
  createAsDraft?: boolean;
  /** For an INCORRECT_CATEGORY rejection when the platform names no category itself. */
  alternativeCategory?: TemplateCategory;
}

interface RcsTestNumberRequest {
  phoneNumber: string;
  features?: string[];
}

export interface RcsSenderLaunchInput extends FollowSettings {
  projectId: string;
  sender: CreateRcsSenderRequest;
  /** questionId → answer, for the use case and the countries. */
  answers: Record<string, string>;
  /** Absent only in a run started for a change (updateSender): its sender is launched already. */
  contact?: RcsLaunchContact;
  testNumbers?: RcsTestNumberRequest[];
  /** A run started for a change: the changes the previous runs recorded, shown on. */
  earlierChanges?: SenderChangeNote[];
}

/**
 * A sender blocked on an unverified number waits for the caller's code: how the code is sent, and how long the
 * whole wait may last before the process ends FAILED. Runs started before this existed lack it (defaults apply).
 */
export interface PhoneVerificationSettings {
  method: ChataVerificationMethod;
  timeoutMs: number;
}

/** Without settings in the start request (and for runs started before they existed): SMS, a day to submit the code. */
export const DEFAULT_PHONE_VERIFICATION: PhoneVerificationSettings = { method: 'SMS', timeoutMs: 86_400_000 };

export type ChataSenderInput = FollowSettings & { projectId: string; phoneVerification?: PhoneVerificationSettings; earlierChanges?: SenderChangeNote[] } & (
    | { mode: 'standard'; sender: CreateChataSenderRequest }
    | { mode: 'embedded'; sender: { businessAccountId: string; phoneNumberId: string; phoneNumber?: string } }
  );

export interface ChatbSenderInput extends FollowSettings {
  projectId: string;
  sender: CreateChatbSenderRequest;
  /** A run started for a change (updateSender): the changes the previous runs recorded, shown on. */
  earlierChanges?: SenderChangeNote[];
}

// ---------------------------------------------------------------------------------------------
// Updates from the API (each carries an operationId: a repeated one is answered from memory)
// ---------------------------------------------------------------------------------------------

export interface ResubmitRequest {
  operationId: string;
  category?: TemplateCategory;
  components?: TemplateComponent[];
  allowCategoryChange?: boolean;
}

export interface RelaunchRequest {
  operationId: string;
  /** Defaults to the launch contact. */
  contact?: RcsLaunchContact;
  /** Replaces the questionnaire answers before the relaunch (the fix of a rejection). */
  answers?: Record<string, string>;
}

export interface StopRequest {
  operationId: string;
  reason?: string;
}

/** The code the sender's number received (encrypted in history like every payload; never kept in the details). */
export interface VerifyPhoneRequest {
  operationId: string;
  code: string;
}

/**
 * A change of the sender (`PATCH` on the platform), only the fields given. Its values are encrypted in history like
 * every payload and never kept in the details: those name the fields only.
 */
export interface UpdateSenderRequest {
  operationId: string;
  changes: SenderChanges;
}

/** The fields of any channel's change (which ones a channel takes: common/wire/provisioning.ts, checked by the API). */
export type SenderChanges = UpdateChataSenderRequest | UpdateChatbSenderRequest | UpdateRcsSenderRequest;

/** One change as the process's details show it: which fields, when, what became of it (no values). */
export interface SenderChangeNote {
  operationId: string;
  fields: string[];
  requestedAt: string;
  /** APPLIED: at once; IN_REVIEW, then APPROVED or REJECTED: the platform reviewed it. */
  status: 'APPLIED' | 'IN_REVIEW' | 'APPROVED' | 'REJECTED';
  decidedAt?: string;
  /** The reviewer's words on a decision, when the platform gave any. */
  reason?: string;
}

export interface OperationOutcome {
  accepted: boolean;
  state: string;
  reason?: string;
  /** The failure type when the platform refused (e.g. PlatformValidationError). */
  errorType?: string;
}

export const resubmitUpdate = defineUpdate<OperationOutcome, [ResubmitRequest]>('resubmit');
export const relaunchUpdate = defineUpdate<OperationOutcome, [RelaunchRequest]>('relaunch');
export const stopUpdate = defineUpdate<OperationOutcome, [StopRequest]>('stop');
/** Drops a live template's pending change (its edit under review or saved); errorType `no_pending_changes` when there is none. */
export const deleteTemplateChangeUpdate = defineUpdate<OperationOutcome, [{ operationId: string }]>('deleteTemplateChange');
/** A CHATA sender waiting for phone verification: the code is forwarded; a wrong one is refused with errorType `wrong_otp`. */
export const verifyPhoneUpdate = defineUpdate<OperationOutcome, [VerifyPhoneRequest]>('verifyPhone');
/**
 * A change of an ACTIVE (LAUNCHED) sender. A process that ended with its sender live is run again for it (the API
 * starts the new run with the update); the answer is the state once the platform took the change.
 */
export const updateSenderUpdate = defineUpdate<OperationOutcome, [UpdateSenderRequest]>('updateSender');
/** Retires a sender or a template: deleted on the platform (a live one too), and the process ends RETIRED. */
export const retireUpdate = defineUpdate<OperationOutcome, [StopRequest]>('retire');
/**
 * The same requests from a parent process (the onboarding's retry of a step): a workflow cannot send an
 * update, so these come as signals; the outcome shows in the state the child then reports.
 */
export const resubmitSignal = defineSignal<[ResubmitRequest]>('resubmitRequested');
export const relaunchSignal = defineSignal<[RelaunchRequest]>('relaunchRequested');

// ---------------------------------------------------------------------------------------------
// Activities: each safe to repeat under Temporal retries (processes/provisioning/activities/)
// ---------------------------------------------------------------------------------------------

export interface CreateTemplateInput {
  channel: TemplateChannel;
  /** name + language is the idempotency key: an existing (not DELETED) template with both is returned. */
  template: CreateTemplateRequest;
}

/** `created: false` when the template already existed (e.g. a retry after a lost answer). */
export type CreateTemplateResult = Template & { created: boolean };

export interface TemplateRef {
  channel: TemplateChannel;
  templateId: string;
}

/** `submitted: false` when the template was no longer a DRAFT (an earlier attempt submitted it, or someone else did). */
export type SubmitTemplateResult = Template & { submitted: boolean };

export interface EditTemplateInput extends TemplateRef {
  changes: UpdateTemplateRequest;
  /**
   * The template's `version` the edit is based on. When given, a template already past it counts as
   * edited (the earlier attempt's answer was lost) and is not patched again. Without it a repeated
   * edit is recognised by the template already holding the changes.
   */
  baseVersion?: number;
}

/** `edited: false` when the edit had already been applied by an earlier attempt. */
export type EditTemplateResult = Template & { edited: boolean };

/** `deleted: false`: the platform answered that no pending changes exist (`message`, its words); the template as read then. */
export type DeleteTemplateChangeResult = { deleted: true; template: Template } | { deleted: false; message: string; template: Template };

/** The create request itself; `displayName` is the idempotency key. */
export type CreateRcsSenderInput = CreateRcsSenderRequest;
/** `created: false` when a sender with this displayName already existed. */
export type CreateRcsSenderResult = RcsSender & { created: boolean };

export interface RcsSenderRef {
  senderId: string;
}

export interface AnswerRcsQuestionnaireInput extends RcsSenderRef {
  /** questionId → answer; replaces earlier answers, so repeating it is harmless. */
  answers: Record<string, string>;
}

export interface AnswerRcsQuestionnaireResult {
  senderId: string;
  answeredQuestionIds: string[];
}

export interface LaunchRcsSenderInput extends RcsSenderRef {
  contact: RcsLaunchContact;
}

/** `launched: false` when the sender had already left DRAFT (an earlier attempt launched it). */
export type LaunchRcsSenderResult = RcsSender & { launched: boolean };

/**
 * `relaunched: false` when nothing is to relaunch (not REJECTED, and no REJECTED country outside a review:
 * e.g. an earlier attempt relaunched it and lost the answer); then nothing is sent.
 */
export type RelaunchRcsSenderResult = RcsSender & { relaunched: boolean };

export interface AddRcsTestNumberInput extends RcsSenderRef {
  phoneNumber: string;
  features?: RcsTestNumberFeature[];
}

export type AddRcsTestNumberResult =
  | { added: true; testNumbers: RcsTestNumber[] }
  /** The sender is not launched yet: the workflow waits for the launch and tries again. */
  | { added: false; reason: 'not_allowed_before_launch' };

/**
 * Embedded sign-up. Only businessAccountId and phoneNumberId are sent; `phoneNumber` (the number behind
 * phoneNumberId, when the caller knows it) only helps find a sender an earlier attempt created.
 */
export type CreateEmbeddedChataSenderInput = CreateEmbeddedChataSenderRequest & { phoneNumber?: string };

/** A normal create (has `phoneNumber` + `displayName`) or an embedded one (has `businessAccountId`). */
export type CreateChataSenderInput = CreateChataSenderRequest | CreateEmbeddedChataSenderInput;

/** `created: false` when a (not DELETED) sender for this number already existed. */
export type CreateChataSenderResult = ChataSender & { created: boolean };

/** The create request itself; `displayName` is the idempotency key. */
export type CreateChatbSenderInput = CreateChatbSenderRequest;
export type CreateChatbSenderResult = ChatbSender & { created: boolean };

export interface SenderRef {
  senderId: string;
}

export interface RequestChataSenderCodeInput extends SenderRef {
  method: ChataVerificationMethod;
}

export interface VerifyChataSenderInput extends SenderRef {
  code: string;
}

/**
 * `verified: false` for a wrong code (`wrong_otp`) or a sender that no longer waits for one; a sender that already
 * left the unverified error (an earlier attempt's answer was lost) counts as verified.
 */
export type VerifyChataSenderResult =
  | { verified: true; sender: ChataSender }
  /** `wrongCode`: the platform refused the code itself (`wrong_otp`), as opposed to a sender not waiting for one. */
  | { verified: false; wrongCode: boolean; errorCode: string; message: string };

export interface UpdateChataSenderInput extends SenderRef {
  changes: UpdateChataSenderRequest;
}

export interface UpdateChatbSenderInput extends SenderRef {
  changes: UpdateChatbSenderRequest;
}

export interface UpdateRcsSenderInput extends SenderRef {
  changes: UpdateRcsSenderRequest;
}

export interface LinkResourceInput {
  resource: ResourceRef;
  processId: string;
}

/**
 * `linked`: recorded in the store (false: a worker without the store attached the process to the inbox instead);
 * `inbox`: the resource's inbox held events from before the link and forwards them (`attached`), or there was none.
 */
export interface LinkResourceResult {
  linked: boolean;
  inbox: 'attached' | 'none';
}

export interface ProvisioningActivities {
  createTemplate(input: CreateTemplateInput): Promise<CreateTemplateResult>;
  getTemplate(input: TemplateRef): Promise<Template>;
  submitTemplate(input: TemplateRef): Promise<SubmitTemplateResult>;
  editTemplate(input: EditTemplateInput): Promise<EditTemplateResult>;
  deleteTemplateChange(input: TemplateRef): Promise<DeleteTemplateChangeResult>;
  /** Deletes the template (retire); `deleted: false` when the platform no longer had it. */
  deleteTemplate(input: TemplateRef): Promise<{ deleted: boolean }>;
  createRcsSender(input: CreateRcsSenderInput): Promise<CreateRcsSenderResult>;
  getRcsSender(input: RcsSenderRef): Promise<RcsSender>;
  answerRcsQuestionnaire(input: AnswerRcsQuestionnaireInput): Promise<AnswerRcsQuestionnaireResult>;
  launchRcsSender(input: LaunchRcsSenderInput): Promise<LaunchRcsSenderResult>;
  relaunchRcsSender(input: LaunchRcsSenderInput): Promise<RelaunchRcsSenderResult>;
  addRcsTestNumber(input: AddRcsTestNumberInput): Promise<AddRcsTestNumberResult>;
  createChataSender(input: CreateChataSenderInput): Promise<CreateChataSenderResult>;
  getChataSender(input: SenderRef): Promise<ChataSender>;
  /** Deletes the sender, live or not (force); `deleted: false` when the platform no longer had it. */
  deleteChataSender(input: SenderRef): Promise<{ deleted: boolean }>;
  requestChataSenderCode(input: RequestChataSenderCodeInput): Promise<{ method: string; sentAt: string }>;
  verifyChataSender(input: VerifyChataSenderInput): Promise<VerifyChataSenderResult>;
  /** The project's CHATA business account and its ban state. */
  getChataAccount(): Promise<ChataAccount>;
  createChatbSender(input: CreateChatbSenderInput): Promise<CreateChatbSenderResult>;
  getChatbSender(input: SenderRef): Promise<ChatbSender>;
  /** Deletes the sender, live or not (force); `deleted: false` when the platform no longer had it. */
  deleteChatbSender(input: SenderRef): Promise<{ deleted: boolean }>;
  /** The sender as the platform answered the change: the same state (applied at once). */
  updateChataSender(input: UpdateChataSenderInput): Promise<ChataSender>;
  /** The sender as the platform answered the change (IN_REVIEW while it is reviewed). */
  updateChatbSender(input: UpdateChatbSenderInput): Promise<ChatbSender>;
  updateRcsSender(input: UpdateRcsSenderInput): Promise<RcsSender>;
  /**
   * The store and Temporal, not the platform: links the process to a resource it adopted (the webhook intake then
   * signals it directly) and has the resource's inbox, if a webhook started one before, forward what it holds. The
   * create activities above link the resource they create or find the same way before they return.
   */
  linkResource(input: LinkResourceInput): Promise<LinkResourceResult>;
  createBundle(input: CreateBundleInput): Promise<CreateBundleResult>;
  getBundle(input: BundleRef): Promise<Bundle>;
  deleteBundle(input: BundleRef): Promise<DeleteBundleResult>;
}

// ---------------------------------------------------------------------------------------------
// Bundle provisioning (docs/bundle-wire.md): a subproject, a conversation app and an SMS app set up
// in one region, followed to ACTIVE or FAILED; deleted on request (the onboarding's compensation).
// ---------------------------------------------------------------------------------------------

export type { Bundle, CreateBundleRequest } from '../../platform/provisioning/bundles.js';

/** Labels relayflow puts on the bundles it creates: how a retried create recognises its own. */
export const BUNDLE_KEY_LABEL = 'relayflow-key';
export const BUNDLE_RUN_LABEL = 'relayflow-run';

export type BundleProcessState = 'CREATING' | 'IN_PROGRESS' | 'ACTIVE' | 'FAILED' | 'DELETING' | 'DELETED' | 'STOPPED';

/** The input of `bundleProvisioning`; a parent (the onboarding) starts it as a child with this. */
export interface BundleProvisioningInput extends FollowSettings {
  projectId: string;
  /** The caller's key (CAMPAIGN_KEY_PATTERN): the business key of the process and a label on the bundle. */
  key: string;
  /** What to create; relayflow adds its labels. */
  bundle: CreateBundleRequest;
  /**
   * Delete only: a run that deletes this bundle (made by an earlier, finished run under the same key)
   * and ends DELETED. Nothing is created.
   */
  deleteBundleId?: string;
}

/** What the process ends with; FAILED is a result too (the platform's reasons in `errors`), not a failed execution. */
export interface BundleProvisioningResult {
  state: BundleProcessState;
  bundleId?: string;
  /** The subproject the apps are in (the project's own ID when the bundle named none). */
  subprojectId?: string;
  conversationAppId?: string;
  smsAppId?: string;
  processingMode?: string;
  region: string;
  /** The platform's reasons when FAILED: `<resource>: <code>: <message>`. */
  errors?: { resource: string; code: string; message: string }[];
  /** Why it ended, in the process's words. */
  reason?: string;
}

export interface DeleteRequest {
  operationId: string;
  reason?: string;
}

/** Deletes the platform's resource and ends the process DELETED (bundles). */
export const deleteUpdate = defineUpdate<OperationOutcome, [DeleteRequest]>('delete');

export interface CreateBundleInput {
  /** Labels BUNDLE_KEY_LABEL and BUNDLE_RUN_LABEL are set by the workflow; a bundle with both is this run's. */
  bundle: CreateBundleRequest;
}

/** `created: false` when this run's bundle already existed (a retry after a lost answer). */
export type CreateBundleResult = Bundle & { created: boolean };

export interface BundleRef {
  bundleId: string;
}

/** `deleted: false` when the bundle was already DELETED (or gone): nothing was sent. */
export type DeleteBundleResult = { deleted: boolean; bundle?: Bundle };
