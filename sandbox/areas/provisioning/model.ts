// The provisioning resources as the sandbox keeps them (docs/provisioning-wire.md). The wire's shapes and value sets
// (states, enums, trigger names) are in common/wire/provisioning.ts (shared with relayflow's client); the records
// here extend or narrow them. The sandbox's own: the triggers it accepts, the resource types its control route
// emits for, and its records.
import {
  BUNDLE_TRIGGERS,
  CHATA_TRIGGERS,
  CHATB_TRIGGERS,
  RCS_TRIGGERS,
  type Bundle as WireBundle,
  type ChataAccount as WireChataAccount,
  type ChataVerificationMethod,
  type ChataSender as WireChataSender,
  type ChatbSender as WireChatbSender,
  type CreateChataSenderRequest,
  type CreateRcsSenderRequest,
  type ProvisioningChannel,
  type ProvisioningResourceType,
  type ProvisioningTrigger,
  type ProvisioningWebhookEventDetails,
  type RcsLaunchContact,
  type RcsSender as WireRcsSender,
  type PendingTemplateChange,
  type Template as WireTemplate,
  type Webhook as WireWebhook,
} from '../../../common/wire/provisioning.js';

/** Accepted for subscription (spec part G) but never emitted by the sandbox. */
const CONVERSATION_TRIGGERS = [
  'BILLING_CREDIT_LIMIT_BREACHED',
  'CONSENT_BATCH_COMPLETE',
  'BATCH_STATUS_UPDATE',
  'MESSAGE_INBOUND_SMART_CONVERSATION_REDACTION',
] as const;
export const ALL_TRIGGERS: readonly string[] = [...CHATA_TRIGGERS, ...RCS_TRIGGERS, ...CHATB_TRIGGERS, ...BUNDLE_TRIGGERS, ...CONVERSATION_TRIGGERS];

export const RESOURCE_TYPES: readonly ProvisioningResourceType[] = ['TEMPLATE', 'SENDER', 'ACCOUNT'];

/**
 * The wire's template as the sandbox keeps it: components as the create or edit gave them (template-rules.ts checks
 * what it must), the codes as its reviewer and control route set them (checked against the wire's sets), times always set.
 */
export interface Template extends Omit<WireTemplate, 'components' | 'rejectionCode' | 'qualityScore' | 'pendingChange'> {
  components: unknown[];
  rejectionCode?: string;
  qualityScore?: string;
  createTime: string;
  pendingChange?: Omit<PendingTemplateChange, 'components' | 'rejectionCode'> & { components: unknown[]; rejectionCode?: string };
}

/** The wire's RCS sender with all its create body, the questionnaire's answers and the launch's contact; times always set. */
export interface RcsSender extends Omit<WireRcsSender, keyof CreateRcsSenderRequest>, CreateRcsSenderRequest {
  questionnaire: { answers: Record<string, string> };
  contact?: RcsLaunchContact;
  createTime: string;
  updateTime: string;
}

/** The wire's CHATA sender with what its create took; the error code as the reviewer or control route set it; times always set. */
export interface ChataSender
  extends
    Omit<WireChataSender, 'errorCode'>,
    Pick<CreateChataSenderRequest, 'description' | 'vertical' | 'conversationApiAppDetails' | 'platformLocalStorage'> {
  saveDraftOnFailure: boolean;
  errorCode?: string;
  /** The code the last register sent (a sandbox secret, shown only by the control route) and how. */
  verification?: { code: string; method: ChataVerificationMethod; sentAt: string; wrongAttempts: number };
  createTime: string;
  updateTime: string;
}

/** The project's CHATA business account, made on first read; its ban as the control route set it. */
export interface ChataAccount extends WireChataAccount {
  state: NonNullable<WireChataAccount['state']>;
  updateTime: string;
}

/** The wire's CHATB sender with what its create took; times always set. */
export interface ChatbSender extends WireChatbSender {
  displayName: string;
  categoryCode: string;
  description?: string;
  createTime: string;
  updateTime: string;
}

/** The wire's bundle, as the sandbox keeps it: its times always set. */
export interface Bundle extends WireBundle {
  createTime: string;
  updateTime: string;
}

/** The wire's webhook with its secret (never returned by the API); triggers include the conversation ones it accepts. */
export interface Webhook extends Omit<WireWebhook, 'triggers'> {
  triggers: string[];
  secret: string;
}

export interface WebhookEvent {
  eventId: string;
  projectId: string;
  trigger: ProvisioningTrigger;
  channel: ProvisioningChannel;
  resourceType: ProvisioningResourceType;
  resourceId: string;
  sequence: number;
  eventTime: string;
  comment?: string;
  details: EventDetails;
}

/** The wire's detail fields; the values as the control route took them (events.ts checks them against the wire's sets). */
export type EventDetails = { [K in keyof ProvisioningWebhookEventDetails]?: string };
