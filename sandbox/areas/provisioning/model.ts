// The provisioning resources as the sandbox keeps them (docs/provisioning-wire.md). The value sets (states, enums,
// trigger names) are the wire's, from common/wire/provisioning.ts (shared with relayflow's client); re-exported here
// so the area's files keep one import. The sandbox's own: the triggers it accepts, the resource types its control
// route emits for, and its records.
import {
  BUNDLE_TRIGGERS,
  CHATA_TRIGGERS,
  CHATB_TRIGGERS,
  RCS_TRIGGERS,
  type Bundle as WireBundle,
  type ChataSenderState,
  type ChatbSenderState,
  type ProvisioningComment,
  type ProvisioningChannel,
  type ProvisioningResourceType,
  type ProvisioningTrigger,
  type ProvisioningWebhookEventDetails,
  type RcsCountryState,
  type RcsOperatorState,
  type RcsSenderState,
  type TemplateCategory,
  type TemplateState,
} from '../../../common/wire/provisioning.js';

export {
  BUNDLE_PROCESSING_MODES,
  BUNDLE_RETENTION_TYPES,
  BUNDLE_STATES,
  CHATA_ERROR_CODES,
  CHATA_SENDER_STATES,
  CHATA_TRIGGERS,
  CHATB_SENDER_STATES,
  CHATB_TRIGGERS,
  CONVERSATION_REGIONS as BUNDLE_REGIONS,
  QUALITY_SCORES,
  RCS_OPERATOR_STATUSES,
  RCS_STATES,
  RCS_TRIGGERS,
  RCS_USE_CASES,
  REJECTION_CODES,
  SUBMIT_STATUSES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_NEW_STATES,
  TEMPLATE_STATES,
} from '../../../common/wire/provisioning.js';
export type {
  ProvisioningChannel as Channel,
  ProvisioningResourceType as ResourceType,
  ProvisioningTrigger as Trigger,
  RcsSenderState as RcsState,
  TemplateCategory,
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

export interface Template {
  id: string;
  name: string;
  language: string;
  category: TemplateCategory;
  state: TemplateState;
  rejectionCode?: string;
  qualityScore?: string;
  allowCategoryChange: boolean;
  messageSendTtlSeconds?: number;
  components: unknown[];
  comments: ProvisioningComment[];
  version: number;
  createTime: string;
  updateTime: string;
}

interface CountryStatus {
  status: RcsCountryState;
  operators: Record<string, RcsOperatorState>;
}

interface TestNumber {
  phoneNumber: string;
  features: string[];
  state: string;
}

export interface RcsSender {
  id: string;
  agentId: string;
  displayName: string;
  description: string;
  websites: { url: string }[];
  brandPhoneNumber: string;
  banner: { url: string; width: number; height: number };
  logo?: { url: string };
  useCase: string;
  countries: string[];
  state: RcsSenderState;
  countryStatus: Record<string, CountryStatus>;
  questionnaire: { answers: Record<string, string> };
  contact?: { email?: string; phoneNumber?: string };
  comments: ProvisioningComment[];
  testNumbers: TestNumber[];
  createTime: string;
  updateTime: string;
}

export interface ChataSender {
  id: string;
  phoneNumber?: string;
  displayName?: string;
  description?: string;
  vertical?: string;
  conversationApiAppDetails?: { appId: string; region: string };
  platformLocalStorage?: string;
  businessAccountId?: string;
  phoneNumberId?: string;
  saveDraftOnFailure: boolean;
  state: ChataSenderState;
  errorCode?: string;
  errorReason?: string;
  maxTps?: number;
  compatibleRegions: string[];
  comments: ProvisioningComment[];
  createTime: string;
  updateTime: string;
}

export interface ChatbSender {
  id: string;
  displayName: string;
  categoryCode: string;
  subcategoryCode?: string;
  description?: string;
  state: ChatbSenderState;
  comments: ProvisioningComment[];
  createTime: string;
  updateTime: string;
}

/** The wire's bundle, as the sandbox keeps it: its times always set. */
export interface Bundle extends WireBundle {
  createTime: string;
  updateTime: string;
}

export interface Webhook {
  id: string;
  target: string;
  triggers: string[];
  /** Never returned by the API. */
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
