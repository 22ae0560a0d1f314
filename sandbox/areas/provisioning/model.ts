// The provisioning resources and their value sets, as docs/provisioning-wire.md names them.

export const CHATA_TRIGGERS = [
  'CHATA_WABA_ACCOUNT_CHANGED',
  'CHATA_TEMPLATE_CATEGORY_FUTURE_UPDATE',
  'CHATA_TEMPLATE_CATEGORY_UPDATED',
  'CHATA_TEMPLATE_STATUS_UPDATED',
  'CHATA_TEMPLATE_QUALITY_SCORE_UPDATED',
  'CHATA_SENDER_DAILY_LIMIT_CHANGED',
  'CHATA_SENDER_QUALITY_RATING_CHANGED',
  'CHATA_TEMPLATE_COMMENT_ADDED',
  'CHATA_ACCOUNT_COMMENT_ADDED',
  'CHATA_TEMPLATE_DELETED',
  'CHATA_TEMPLATE_APPROVED',
  'CHATA_TEMPLATE_REJECTED',
] as const;
export const RCS_TRIGGERS = [
  'RCS_SENDER_OPERATOR_STATUS_UPDATED',
  'RCS_ACCOUNT_COMMENT_ADDED',
  'RCS_SENDER_COMMENT_ADDED',
  'RCS_SENDER_STATUS_UPDATED',
  'RCS_SENDER_REJECTED',
  'RCS_SENDER_CREATED',
] as const;
export const CHATB_TRIGGERS = [
  'CHATB_SENDER_COMMENT_ADDED',
  'CHATB_SENDER_REJECTED',
  'CHATB_SENDER_INACTIVE',
  'CHATB_TEMPLATE_COMMENT_ADDED',
  'CHATB_TEMPLATE_REJECTED',
  'CHATB_TEMPLATE_APPROVED',
] as const;
/** Accepted for subscription (spec part G) but never emitted by the sandbox. */
const CONVERSATION_TRIGGERS = [
  'BILLING_CREDIT_LIMIT_BREACHED',
  'CONSENT_BATCH_COMPLETE',
  'BATCH_STATUS_UPDATE',
  'MESSAGE_INBOUND_SMART_CONVERSATION_REDACTION',
] as const;
/** Bundles (docs/bundle-wire.md): emitted when a bundle's provisioning ends, ACTIVE or FAILED. */
const BUNDLE_TRIGGERS = ['BUNDLE_DONE'] as const;
export const ALL_TRIGGERS: readonly string[] = [...CHATA_TRIGGERS, ...RCS_TRIGGERS, ...CHATB_TRIGGERS, ...BUNDLE_TRIGGERS, ...CONVERSATION_TRIGGERS];
export type Trigger = (typeof CHATA_TRIGGERS)[number] | (typeof RCS_TRIGGERS)[number] | (typeof CHATB_TRIGGERS)[number] | (typeof BUNDLE_TRIGGERS)[number];

/** PROJECT: resources of no channel (bundles). */
export type Channel = 'CHATA' | 'CHATB' | 'RCS' | 'PROJECT';
export type ResourceType = 'TEMPLATE' | 'SENDER' | 'ACCOUNT' | 'BUNDLE';
export const RESOURCE_TYPES: readonly ResourceType[] = ['TEMPLATE', 'SENDER', 'ACCOUNT'];

export const TEMPLATE_CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export const TEMPLATE_STATES = ['DRAFT', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED', 'DELETED'] as const;
type TemplateState = (typeof TEMPLATE_STATES)[number];
export const REJECTION_CODES = ['ABUSIVE_CONTENT', 'INCORRECT_CATEGORY', 'INVALID_FORMAT', 'NONE', 'SCAM', 'UNRECOGNIZED'] as const;
export const QUALITY_SCORES = ['QUALITY_SCORE_GREEN', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_RED', 'QUALITY_SCORE_UNKNOWN'] as const;
export const TEMPLATE_NEW_STATES = ['DISABLED', 'PAUSED', 'REINSTATED', 'UNPAUSED'] as const;
export const SUBMIT_STATUSES = ['DRAFT', 'SUBMIT'] as const;

export const RCS_STATES = ['DRAFT', 'IN_REVIEW', 'LAUNCHED', 'REJECTED', 'PARTIALLY_LAUNCHED'] as const;
export type RcsState = (typeof RCS_STATES)[number];
export const RCS_USE_CASES = ['MULTIUSE', 'TRANSACTIONAL', 'PROMOTIONAL', 'OTP'] as const;
type RcsCountryStatus = 'NOT_LAUNCHED' | 'PENDING' | 'LAUNCHED' | 'REJECTED' | 'INVALID_IN_GOOGLE_MY_BUSINESS';
export const RCS_OPERATOR_STATUSES = ['PENDING', 'LAUNCHED', 'REJECTED'] as const;
type RcsOperatorStatus = (typeof RCS_OPERATOR_STATUSES)[number];

export const CHATA_SENDER_STATES = ['DRAFT', 'PENDING', 'ACTIVE', 'REJECTED', 'ERROR', 'DELETED'] as const;
type ChataSenderState = (typeof CHATA_SENDER_STATES)[number];
export const CHATA_ERROR_CODES = [
  'NOVA_ACCOUNT_ID_CONFLICT',
  'NO_NOVA_ACCOUNT_ID',
  'PROJECT_ID_CONFLICT',
  'NO_PROJECT_ID',
  'CANNOT_ASSIGN_CREDIT_LINE',
  'CANNOT_SUBSCRIBE_TO_WEBHOOK',
  'NO_PRICING_PLAN',
  'CANNOT_ASSIGN_SYSTEM_USER',
  'NO_VERIFIED_PHONE_NUMBER',
  'CANNOT_GET_WABA_DETAILS',
  'MULTIPLE_WABA_FOR_PROJECT_ID',
  'NOT_VERIFY_BUSINESS_VIA_CHATA',
  'CANNOT_CREATE_NEW_CHATA_BOT',
  'CANNOT_REGISTER_NEW_CHATA_BOT',
  'FAILED_TO_FETCH_APPROVED_MESSAGE_TEMPLATES',
  'NOT_VERIFIED_REQUESTED_PHONE_NUMBER',
  'DUPLICATES_ON_SENDER_PHONE_NUMBER',
  'CANNOT_CREATE_WABA_FOR_BUSINESS',
  'CANNOT_SUBSCRIBE_TO_CLOUD_API',
  'CANNOT_GET_DETAILS_FOR_CLOUD_API',
  'CANNOT_REGISTER_TO_CLOUD_API',
  'UNKNOWN_ERROR',
  'NO_CERTIFICATE_AVAILABLE',
  'UNRECOGNIZED',
  'WABA_CONNECTED_TO_ANOTHER_PROJECT',
  'SENDER_HAS_BEEN_DELETED',
] as const;

export const CHATB_SENDER_STATES = ['DRAFT', 'IN_REVIEW', 'ACTIVE', 'REJECTED', 'INACTIVE'] as const;
type ChatbSenderState = (typeof CHATB_SENDER_STATES)[number];

interface Comment {
  text: string;
  at: string;
  author: string;
}

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
  comments: Comment[];
  version: number;
  createTime: string;
  updateTime: string;
}

interface CountryStatus {
  status: RcsCountryStatus;
  operators: Record<string, RcsOperatorStatus>;
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
  state: RcsState;
  countryStatus: Record<string, CountryStatus>;
  questionnaire: { answers: Record<string, string> };
  contact?: { email?: string; phoneNumber?: string };
  comments: Comment[];
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
  comments: Comment[];
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
  comments: Comment[];
  createTime: string;
  updateTime: string;
}

export const BUNDLE_STATES = ['IN_PROGRESS', 'ACTIVE', 'FAILED', 'DELETED'] as const;
type BundleState = (typeof BUNDLE_STATES)[number];
export const BUNDLE_PROCESSING_MODES = ['DISPATCH', 'CONVERSATION'] as const;
export const BUNDLE_RETENTION_TYPES = ['MESSAGE_EXPIRE_POLICY', 'CONVERSATION_EXPIRE_POLICY', 'PERSIST_RETENTION_POLICY'] as const;
export const BUNDLE_REGIONS = ['US', 'EU', 'BR'] as const;
type SmsAppStatus = 'PROVISIONING_ADD' | 'PROVISIONING_UPDATE' | 'PROVISIONING_ADD_FAILED' | 'PROVISIONING_UPDATE_FAILED' | 'ACTIVE';

export interface Bundle {
  id: string;
  name: string;
  region: (typeof BUNDLE_REGIONS)[number];
  state: BundleState;
  labels: Record<string, string>;
  subproject: { id: string; name?: string; created: boolean };
  convApp?: {
    id: string;
    name: string;
    processingMode: (typeof BUNDLE_PROCESSING_MODES)[number];
    retentionPolicy: { retentionType: (typeof BUNDLE_RETENTION_TYPES)[number]; ttlDays: number };
  };
  smsApp?: { id: string; name: string; status: SmsAppStatus };
  webhookDeliveryStatuses: { target: string; status: string; httpStatus?: number; message?: string; lastAttemptTime: string }[];
  errors?: { resource: string; code: string; message: string }[];
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
  trigger: Trigger;
  channel: Channel;
  resourceType: ResourceType;
  resourceId: string;
  sequence: number;
  eventTime: string;
  comment?: string;
  details: EventDetails;
}

export interface EventDetails {
  state?: string;
  newState?: string;
  rejectionCode?: string;
  qualityScore?: string;
  category?: string;
  country?: string;
  operator?: string;
  operatorStatus?: string;
  errorCode?: string;
  errorReason?: string;
}
