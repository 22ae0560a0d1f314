// Provisioning interface (area G): the states, enums, trigger names and webhook payload shared by the
// provisioning clients, activities and (later) workflows. Contract: docs/provisioning-wire.md.

export type ProvisioningChannel = 'CHATA' | 'CHATB' | 'RCS' | 'PROJECT';
/** The two template channels. */
export type TemplateChannel = 'CHATA' | 'CHATB';

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

export type TemplateState = 'DRAFT' | 'IN_PROGRESS' | 'APPROVED' | 'REJECTED' | 'PAUSED' | 'DISABLED' | 'DELETED';

export type TemplateCategory = 'AUTHENTICATION' | 'MARKETING' | 'UTILITY';
export type RejectionCode = 'ABUSIVE_CONTENT' | 'INCORRECT_CATEGORY' | 'INVALID_FORMAT' | 'NONE' | 'SCAM' | 'UNRECOGNIZED';
export type QualityScore = 'QUALITY_SCORE_GREEN' | 'QUALITY_SCORE_YELLOW' | 'QUALITY_SCORE_RED' | 'QUALITY_SCORE_UNKNOWN' | 'UNRECOGNIZED';
/** `newState` of CHATA_TEMPLATE_STATUS_UPDATED. */
type TemplateStatusUpdate = 'DISABLED' | 'PAUSED' | 'REINSTATED' | 'UNPAUSED';
/** Request field of creates and edits: keep as a draft, or submit for review (the default). */
export type ProvisioningRequestStatus = 'DRAFT' | 'SUBMIT';

// ---------------------------------------------------------------------------------------------
// Senders
// ---------------------------------------------------------------------------------------------

export type RcsSenderState = 'DRAFT' | 'IN_REVIEW' | 'LAUNCHED' | 'REJECTED' | 'PARTIALLY_LAUNCHED';
export type RcsCountryState = 'NOT_LAUNCHED' | 'PENDING' | 'LAUNCHED' | 'REJECTED' | 'INVALID_IN_GOOGLE_MY_BUSINESS';
export type RcsOperatorState = 'PENDING' | 'LAUNCHED' | 'REJECTED';
export type RcsUseCase = 'MULTIUSE' | 'TRANSACTIONAL' | 'PROMOTIONAL' | 'OTP';
/** Test-number features; the platform adds new ones over time, hence the open string. */
export type RcsTestNumberFeature = 'ACTION_COMPOSE' | 'ACTION_OPEN_URL_IN_WEBVIEW' | (string & {});

export type ChataSenderState = 'DRAFT' | 'PENDING' | 'ACTIVE' | 'REJECTED' | 'ERROR' | 'DELETED';
export type ChataVertical = 'ALCOHOL' | 'ONLINE_GAMBLING' | 'OTC_DRUGS' | 'PHYSICAL_GAMBLING' | 'OTHER';
export type ChataLocalStorage = 'AE' | 'AU' | 'BH' | 'CA' | 'CH' | 'GB' | 'ID' | 'IN' | 'JP' | 'KR' | 'SG' | 'ZA';
export type ConversationRegion = 'US' | 'EU' | 'BR';
export type ChataSenderErrorCode =
  | 'NOVA_ACCOUNT_ID_CONFLICT'
  | 'NO_NOVA_ACCOUNT_ID'
  | 'PROJECT_ID_CONFLICT'
  | 'NO_PROJECT_ID'
  | 'CANNOT_ASSIGN_CREDIT_LINE'
  | 'CANNOT_SUBSCRIBE_TO_WEBHOOK'
  | 'NO_PRICING_PLAN'
  | 'CANNOT_ASSIGN_SYSTEM_USER'
  | 'NO_VERIFIED_PHONE_NUMBER'
  | 'CANNOT_GET_WABA_DETAILS'
  | 'MULTIPLE_WABA_FOR_PROJECT_ID'
  | 'NOT_VERIFY_BUSINESS_VIA_CHATA'
  | 'CANNOT_CREATE_NEW_CHATA_BOT'
  | 'CANNOT_REGISTER_NEW_CHATA_BOT'
  | 'FAILED_TO_FETCH_APPROVED_MESSAGE_TEMPLATES'
  | 'NOT_VERIFIED_REQUESTED_PHONE_NUMBER'
  | 'DUPLICATES_ON_SENDER_PHONE_NUMBER'
  | 'CANNOT_CREATE_WABA_FOR_BUSINESS'
  | 'CANNOT_SUBSCRIBE_TO_CLOUD_API'
  | 'CANNOT_GET_DETAILS_FOR_CLOUD_API'
  | 'CANNOT_REGISTER_TO_CLOUD_API'
  | 'UNKNOWN_ERROR'
  | 'NO_CERTIFICATE_AVAILABLE'
  | 'UNRECOGNIZED'
  | 'WABA_CONNECTED_TO_ANOTHER_PROJECT'
  | 'SENDER_HAS_BEEN_DELETED';

export type ChatbSenderState = 'DRAFT' | 'IN_REVIEW' | 'ACTIVE' | 'REJECTED' | 'INACTIVE';

// ---------------------------------------------------------------------------------------------
// Bundles (docs/bundle-wire.md)
// ---------------------------------------------------------------------------------------------

export type BundleState = 'IN_PROGRESS' | 'ACTIVE' | 'FAILED' | 'DELETED';
export type BundleProcessingMode = 'DISPATCH' | 'CONVERSATION';
export type BundleRetentionType = 'MESSAGE_EXPIRE_POLICY' | 'CONVERSATION_EXPIRE_POLICY' | 'PERSIST_RETENTION_POLICY';
/** The SMS app's statuses the spec names, and ACTIVE once it is provisioned. */
export type BundleSmsAppStatus = 'PROVISIONING_ADD' | 'PROVISIONING_UPDATE' | 'PROVISIONING_ADD_FAILED' | 'PROVISIONING_UPDATE_FAILED' | 'ACTIVE';

/** A reviewer's or the platform's comment on a template, sender or account. */
export interface ProvisioningComment {
  text: string;
  at: string;
  author: string;
}

// ---------------------------------------------------------------------------------------------
// Webhook triggers and events
// ---------------------------------------------------------------------------------------------

const CHATA_TRIGGERS = [
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

const RCS_TRIGGERS = [
  'RCS_SENDER_OPERATOR_STATUS_UPDATED',
  'RCS_ACCOUNT_COMMENT_ADDED',
  'RCS_SENDER_COMMENT_ADDED',
  'RCS_SENDER_STATUS_UPDATED',
  'RCS_SENDER_REJECTED',
  'RCS_SENDER_CREATED',
] as const;

const CHATB_TRIGGERS = [
  'CHATB_SENDER_COMMENT_ADDED',
  'CHATB_SENDER_REJECTED',
  'CHATB_SENDER_INACTIVE',
  'CHATB_TEMPLATE_COMMENT_ADDED',
  'CHATB_TEMPLATE_REJECTED',
  'CHATB_TEMPLATE_APPROVED',
] as const;

type ChataTrigger = (typeof CHATA_TRIGGERS)[number];
type RcsTrigger = (typeof RCS_TRIGGERS)[number];
type ChatbTrigger = (typeof CHATB_TRIGGERS)[number];
/** Bundles (docs/bundle-wire.md): BUNDLE_DONE when a bundle's provisioning has ended, ACTIVE or FAILED. */
const BUNDLE_TRIGGERS = ['BUNDLE_DONE'] as const;
type BundleTrigger = (typeof BUNDLE_TRIGGERS)[number];
export type ProvisioningTrigger = ChataTrigger | RcsTrigger | ChatbTrigger | BundleTrigger;

export const PROVISIONING_TRIGGERS: readonly ProvisioningTrigger[] = [...CHATA_TRIGGERS, ...RCS_TRIGGERS, ...CHATB_TRIGGERS, ...BUNDLE_TRIGGERS];

export function isProvisioningTrigger(value: unknown): value is ProvisioningTrigger {
  return typeof value === 'string' && (PROVISIONING_TRIGGERS as readonly string[]).includes(value);
}

export type ProvisioningResourceType = 'TEMPLATE' | 'SENDER' | 'ACCOUNT' | 'BUNDLE';

/** What changed, per trigger (see docs/provisioning-wire.md); every field is optional. */
export interface ProvisioningWebhookEventDetails {
  /** Sender state (RCS_SENDER_STATUS_UPDATED, CHATA_WABA_ACCOUNT_CHANGED, CHATB_SENDER_COMMENT_ADDED...). */
  state?: string;
  /** CHATA_TEMPLATE_STATUS_UPDATED. */
  newState?: TemplateStatusUpdate;
  rejectionCode?: RejectionCode;
  qualityScore?: QualityScore;
  category?: TemplateCategory;
  country?: string;
  operator?: string;
  operatorStatus?: RcsOperatorState;
  errorCode?: ChataSenderErrorCode | (string & {});
  errorReason?: string;
}

/**
 * The channel and resource type a trigger names, or undefined for triggers of no provisioning resource
 * (the conversation ones). CHATA_WABA_ACCOUNT_CHANGED reports a CHATA sender's state, so it names a SENDER.
 */
export function triggerTarget(trigger: string): { channel: ProvisioningChannel; resourceType: ProvisioningResourceType } | undefined {
  if (trigger === 'CHATA_WABA_ACCOUNT_CHANGED') return { channel: 'CHATA', resourceType: 'SENDER' };
  // A bundle belongs to no channel: its inbox is resource:PROJECT:BUNDLE:<bundleId> (docs/bundle-wire.md).
  if ((BUNDLE_TRIGGERS as readonly string[]).includes(trigger)) return { channel: 'PROJECT', resourceType: 'BUNDLE' };
  const m = /^(CHATA|CHATB|RCS)_(TEMPLATE|SENDER|ACCOUNT)_/.exec(trigger);
  return m ? { channel: m[1] as ProvisioningChannel, resourceType: m[2] as ProvisioningResourceType } : undefined;
}

// ---------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------

/** One page of a list, with the items under the same key as on the wire (`templates`, `senders`...). */
export type ProvisioningPage<K extends string, T> = { [P in K]: T[] } & {
  /** '' on the last page. */
  nextPageToken: string;
  totalSize?: number;
};
