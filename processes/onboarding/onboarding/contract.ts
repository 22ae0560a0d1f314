// Customer onboarding: one process that runs the other processes (subproject, bundle, senders, templates,
// sender ID registrations) as child workflows in dependency order, plus the provisioning webhook, and
// undoes what the platform lets be undone when it is cancelled. What the API, the workflow and its
// activities share. The API builds every step's child input (the same inputs the process's own route
// builds), so the workflow knows steps, dependencies and states, not the shapes of the children.
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { OperationOutcome, ResubmitRequest, RelaunchRequest } from '../../provisioning/contract.js';

export type { OperationOutcome } from '../../provisioning/contract.js';

/** What a step runs: a child process of this kind, or (webhook) one platform call. */
export type StepKind =
  | 'subproject'
  | 'bundle-provisioning'
  | 'webhook'
  | 'rcs-sender'
  | 'chata-sender'
  | 'chatb-sender'
  | 'chata-template'
  | 'chatb-template'
  | 'senderid-registration';

/** A step that runs a child process: every kind but the webhook (one platform call). */
export type ProcessStepKind = Exclude<StepKind, 'webhook'>;

/** What a child's state means for its step: ok ends it, failed fails it, anything else is on the way. */
export type ChildOutcome = 'ok' | 'failed' | 'on-the-way';

/** The platform resource IDs a step's process may report; compensation deletes by them. */
export const RESOURCE_FIELDS = ['subprojectId', 'bundleId', 'senderId', 'templateId', 'registrationId', 'webhookId'] as const;
export type ResourceField = (typeof RESOURCE_FIELDS)[number];
export type ResourceIds = Partial<Record<ResourceField, string>>;

/** A step name: 1..64 of [A-Za-z0-9._-]. `subproject`, `bundle` and `webhook` are the singletons' names. */
export const STEP_NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface StepDependency {
  step: string;
  /** The step cannot run without this one (a template without its sender): skipping it skips this too. */
  hard?: boolean;
}

/**
 * A field of the child's input (or the webhook step's plan) filled from a finished step: the bundle's subprojectId,
 * and the projectId of what is made in the customer's subproject, from the subproject step.
 */
export interface StepBinding {
  from: string;
  field: ResourceField;
  /** Dotted path in the child's input, e.g. `bundle.subprojectId`. */
  into: string;
}

export interface WebhookPlan {
  target: string;
  /** At least 8 characters: the HMAC key of the deliveries. */
  secret: string;
  /** Provisioning triggers; every trigger when absent. */
  triggers?: string[];
  /** The project whose events it receives: the customer's subproject (bound from that step), else the platform project. */
  projectId?: string;
}

export interface StepPlan {
  name: string;
  kind: StepKind;
  /** The child process (every kind but webhook): its workflow type, business ID and input. */
  process?: { workflowType: string; processId: string; input: unknown };
  webhook?: WebhookPlan;
  after: StepDependency[];
  bind?: StepBinding[];
}

export interface OnboardingInput {
  projectId: string;
  /** The caller's key (CAMPAIGN_KEY_PATTERN): the business key of the onboarding. */
  key: string;
  /** A hash of the plan as the caller sent it: the same key with another plan is refused (409). */
  planHash: string;
  steps: StepPlan[];
}

/**
 * PENDING: waiting for the steps it needs. RUNNING: its process runs. SUCCEEDED: its process reached the
 * state the onboarding waits for (READY, ACTIVE, LAUNCHED, APPROVED). FAILED: it failed for good, and
 * waits for the caller (retry, skip, cancel). BLOCKED: a step it needs failed. SKIPPED: by the caller, or
 * a step it cannot run without was skipped. STOPPED: the onboarding was cancelled.
 */
export type StepState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'BLOCKED' | 'SKIPPED' | 'STOPPED';

export interface Compensation {
  undone: boolean;
  /** What was done, or why it could not be undone. */
  reason: string;
}

/** What undoStep did, and the resource ID it went by (read from the child's status when the step did not have it). */
export interface UndoStepResult extends Compensation {
  resource?: ResourceIds;
}

export interface StepView {
  name: string;
  kind: StepKind;
  state: StepState;
  reason?: string;
  after: string[];
  /** The child process (its own process in the list and the timeline). */
  processId?: string;
  /**
   * The child's state at its last change of outcome (on the way, ok, failed: it reports no other change) or the one it
   * ended in; the child's own process (processId) says where it is now.
   */
  processState?: string;
  /** What the step made, as its child reported it at a change of outcome or its end, or compensation found it. */
  resource: ResourceIds;
  /** Runs of the step's process (a retry that restarts it adds one). */
  attempts: number;
  /** Set by a cancel: what happened to what the step made. */
  compensation?: Compensation;
  /** The webhook step: false when a webhook with the target existed before (it is left alone on cancel). */
  created?: boolean;
}

/**
 * RUNNING: steps run or wait for the ones they need. WAITING_FOR_CALLER: nothing can move until the caller
 * retries, skips or cancels a failed step. COMPLETED: every step SUCCEEDED or SKIPPED. CANCELLING, then
 * CANCELLED: running steps stopped and what they made undone in reverse order.
 */
export type OnboardingState = 'RUNNING' | 'WAITING_FOR_CALLER' | 'COMPLETED' | 'CANCELLING' | 'CANCELLED';

export interface OnboardingDetails {
  key: string;
  planHash: string;
  steps: StepView[];
  cancelReason?: string;
}

export interface OnboardingResult {
  state: OnboardingState;
  steps: StepView[];
}

// ---------------------------------------------------------------------------------------------
// Signals and updates
// ---------------------------------------------------------------------------------------------

/**
 * A child process's state change, sent by the child itself (processes/shared/workflow/process-state.ts) when its outcome
 * changes (childOutcome): the changes the step rules react to, not every one.
 */
export interface ChildStateReport {
  processId: string;
  state: string;
  at: string;
  reason?: string;
  resource?: ResourceIds;
}

export const childStateSignal = defineSignal<[ChildStateReport]>('childState');

export interface RetryStepRequest {
  operationId: string;
  step: string;
  /** A REJECTED template is edited and resubmitted with these (category, components). */
  resubmit?: Omit<ResubmitRequest, 'operationId'>;
  /** A REJECTED or PARTIALLY_LAUNCHED RCS sender is relaunched with these (answers, contact). */
  relaunch?: Omit<RelaunchRequest, 'operationId'>;
}

export interface SkipStepRequest {
  operationId: string;
  step: string;
  reason?: string;
}

export interface CancelOnboardingRequest {
  operationId: string;
  reason?: string;
}

export interface AddStepsRequest {
  operationId: string;
  steps: StepPlan[];
}

export const retryStepUpdate = defineUpdate<OperationOutcome, [RetryStepRequest]>('retryStep');
export const skipStepUpdate = defineUpdate<OperationOutcome, [SkipStepRequest]>('skipStep');
export const cancelOnboardingUpdate = defineUpdate<OperationOutcome, [CancelOnboardingRequest]>('cancelOnboarding');
export const addStepsUpdate = defineUpdate<OperationOutcome, [AddStepsRequest]>('addSteps');

// ---------------------------------------------------------------------------------------------
// Activities (processes/onboarding/onboarding/activities/): each safe to repeat under Temporal retries
// ---------------------------------------------------------------------------------------------

export interface EnsureWebhookResult {
  webhookId: string;
  /** false: a webhook with this target existed already (compensation leaves it). */
  created: boolean;
}

export interface UndoStepInput {
  kind: StepKind;
  /** The child process, to read resource IDs it made but never reported. */
  processId?: string;
  resource: ResourceIds;
  /** The webhook step's `created`. */
  created?: boolean;
  /** The project the resource lives in (the customer's subproject), else the platform project. */
  projectId?: string;
}

export interface OnboardingActivities {
  /** Subscribes the target to the provisioning triggers unless a webhook with that target exists. */
  ensureWebhook(input: WebhookPlan): Promise<EnsureWebhookResult>;
  /**
   * Undoes what the step made where the platform allows it: deletes a template not approved, a sender not
   * launched or active, a registration not approved, a bundle, a webhook this onboarding created. Says why not
   * otherwise (a subproject cannot be deleted). Repeating it is harmless: what is gone counts as undone.
   */
  undoStep(input: UndoStepInput): Promise<UndoStepResult>;
}
