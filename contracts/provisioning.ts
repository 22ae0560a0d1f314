// What the API, the webhook intake, the inbox and the provisioning processes share: events, signals,
// updates, inputs and outcomes (area G). Types of the platform's resources come from the client.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ProvisioningChannel,
  ProvisioningResourceType,
  ProvisioningWebhookEvent,
  TemplateCategory,
  TemplateChannel,
} from '../platform/provisioning/types.js';
import type { TemplateComponent } from '../platform/provisioning/templates.js';
import type { CreateRcsSenderRequest, RcsLaunchContact } from '../platform/provisioning/rcs-senders.js';
import type { CreateChataSenderRequest, CreateChatbSenderRequest } from '../platform/provisioning/chat-senders.js';

/** A provisioning webhook event exactly as the platform sent it (the signature already checked). */
export type ProvisioningEvent = ProvisioningWebhookEvent;

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

/** An event for a resource: to its inbox (from the intake route), and from the inbox to the process. */
export const provisioningEventSignal = defineSignal<[ProvisioningEvent]>('provisioningEvent');
/** A process that follows the resource: the inbox forwards everything it kept, and everything after. */
export const attachSignal = defineSignal<[{ processId: string }]>('attach');

export interface InboxEventView {
  eventId: string;
  trigger: string;
  sequence: number;
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

export interface RcsTestNumberRequest {
  phoneNumber: string;
  features?: string[];
}

export interface RcsSenderLaunchInput extends FollowSettings {
  projectId: string;
  sender: CreateRcsSenderRequest;
  /** questionId → answer, for the use case and the countries. */
  answers: Record<string, string>;
  contact: RcsLaunchContact;
  testNumbers?: RcsTestNumberRequest[];
}

export type ChataSenderInput = FollowSettings & { projectId: string } & (
  | { mode: 'standard'; sender: CreateChataSenderRequest }
  | { mode: 'embedded'; sender: { businessAccountId: string; phoneNumberId: string; phoneNumber?: string } }
);

export interface ChatbSenderInput extends FollowSettings {
  projectId: string;
  sender: CreateChatbSenderRequest;
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
