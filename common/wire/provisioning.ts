// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// may extend or narrow these), so it stays an independent check. Here: provisioning (area G), docs/provisioning-wire.md
// and docs/bundle-wire.md: the value sets (states, enums, trigger names), the webhook event's details, and the
// resources (templates, senders, bundles, webhooks) with their request bodies.

/** PROJECT: resources of no channel (bundles). */
export type ProvisioningChannel = 'CHATA' | 'CHATB' | 'RCS' | 'PROJECT';
/** The two template channels. */
export type TemplateChannel = 'CHATA' | 'CHATB';

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

export const TEMPLATE_STATES = ['DRAFT', 'IN_PROGRESS', 'APPROVED', 'REJECTED', 'PAUSED', 'DISABLED', 'DELETED'] as const;
export type TemplateState = (typeof TEMPLATE_STATES)[number];
export const TEMPLATE_CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export const REJECTION_CODES = ['ABUSIVE_CONTENT', 'INCORRECT_CATEGORY', 'INVALID_FORMAT', 'NONE', 'SCAM', 'UNRECOGNIZED'] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];
/** UNRECOGNIZED as in ../shared/spec/platform-interfaces.md (docs/provisioning-wire.md lists the other four). */
export const QUALITY_SCORES = ['QUALITY_SCORE_GREEN', 'QUALITY_SCORE_YELLOW', 'QUALITY_SCORE_RED', 'QUALITY_SCORE_UNKNOWN', 'UNRECOGNIZED'] as const;
export type QualityScore = (typeof QUALITY_SCORES)[number];
/** `newState` of CHATA_TEMPLATE_STATUS_UPDATED. */
export const TEMPLATE_NEW_STATES = ['DISABLED', 'PAUSED', 'REINSTATED', 'UNPAUSED'] as const;
type TemplateStatusUpdate = (typeof TEMPLATE_NEW_STATES)[number];
/** Request field of creates and edits: keep as a draft, or submit for review (the default). */
export const SUBMIT_STATUSES = ['DRAFT', 'SUBMIT'] as const;
export type ProvisioningRequestStatus = (typeof SUBMIT_STATUSES)[number];
export const TEMPLATE_COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS', 'CAROUSEL'] as const;
type TemplateComponentType = (typeof TEMPLATE_COMPONENT_TYPES)[number];
export const TEMPLATE_HEADER_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION', 'TEXT'] as const;
type TemplateHeaderFormat = (typeof TEMPLATE_HEADER_FORMATS)[number];

// ---------------------------------------------------------------------------------------------
// Senders
// ---------------------------------------------------------------------------------------------

export const RCS_STATES = ['DRAFT', 'IN_REVIEW', 'LAUNCHED', 'REJECTED', 'PARTIALLY_LAUNCHED'] as const;
export type RcsSenderState = (typeof RCS_STATES)[number];
type RcsCountryState = 'NOT_LAUNCHED' | 'PENDING' | 'LAUNCHED' | 'REJECTED' | 'INVALID_IN_GOOGLE_MY_BUSINESS';
export const RCS_OPERATOR_STATUSES = ['PENDING', 'LAUNCHED', 'REJECTED'] as const;
type RcsOperatorState = (typeof RCS_OPERATOR_STATUSES)[number];
export const RCS_USE_CASES = ['MULTIUSE', 'TRANSACTIONAL', 'PROMOTIONAL', 'OTP'] as const;
export type RcsUseCase = (typeof RCS_USE_CASES)[number];
/** Test-number features; the platform adds new ones over time, hence the open string. */
export type RcsTestNumberFeature = 'ACTION_COMPOSE' | 'ACTION_OPEN_URL_IN_WEBVIEW' | (string & {});

export const CHATA_SENDER_STATES = ['DRAFT', 'PENDING', 'ACTIVE', 'REJECTED', 'ERROR', 'DELETED'] as const;
type ChataSenderState = (typeof CHATA_SENDER_STATES)[number];
/** A live CHATA sender's quality rating and messaging limit (the platform's public references, phone number quality). */
export const CHATA_QUALITY_RATINGS = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] as const;
export const CHATA_MESSAGING_LIMITS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'] as const;
export const CHATA_VERTICALS = ['ALCOHOL', 'ONLINE_GAMBLING', 'OTC_DRUGS', 'PHYSICAL_GAMBLING', 'OTHER'] as const;
type ChataVertical = (typeof CHATA_VERTICALS)[number];
export const CHATA_LOCAL_STORAGES = ['AE', 'AU', 'BH', 'CA', 'CH', 'GB', 'ID', 'IN', 'JP', 'KR', 'SG', 'ZA'] as const;
type ChataLocalStorage = (typeof CHATA_LOCAL_STORAGES)[number];
/** The business account's ban states (spec part G, account); REINSTATE is a lifted ban. */
export const CHATA_BAN_STATES = ['DISABLE', 'REINSTATE', 'SCHEDULE_FOR_DISABLE', 'UNRECOGNIZED'] as const;
type ChataBanState = (typeof CHATA_BAN_STATES)[number];
/** The account's `state` (spec part G: given at creation, optional on get). */
type ChataAccountState = 'ONBOARDED' | 'PENDING_PLATFORM_VERIFICATION' | 'REJECTED';
/** How the platform sends a sender's verification code (public API reference, "Register sender"). */
export const CHATA_VERIFICATION_METHODS = ['SMS', 'VOICE'] as const;
export type ChataVerificationMethod = (typeof CHATA_VERIFICATION_METHODS)[number];
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
export type ChataSenderErrorCode = (typeof CHATA_ERROR_CODES)[number];
/** The errorCodes a verification code clears, the number being unverified (public API reference, "Register sender"). */
export const CHATA_UNVERIFIED_NUMBER_ERRORS: readonly string[] = [
  'NO_VERIFIED_PHONE_NUMBER',
  'NOT_VERIFIED_REQUESTED_PHONE_NUMBER',
] satisfies ChataSenderErrorCode[];

export const CHATB_SENDER_STATES = ['DRAFT', 'IN_REVIEW', 'ACTIVE', 'REJECTED', 'INACTIVE'] as const;
type ChatbSenderState = (typeof CHATB_SENDER_STATES)[number];

// ---------------------------------------------------------------------------------------------
// Bundles (docs/bundle-wire.md)
// ---------------------------------------------------------------------------------------------

export const CONVERSATION_REGIONS = ['US', 'EU', 'BR'] as const;
export type ConversationRegion = (typeof CONVERSATION_REGIONS)[number];
export const BUNDLE_STATES = ['IN_PROGRESS', 'ACTIVE', 'FAILED', 'DELETED'] as const;
type BundleState = (typeof BUNDLE_STATES)[number];
export const BUNDLE_PROCESSING_MODES = ['DISPATCH', 'CONVERSATION'] as const;
export type BundleProcessingMode = (typeof BUNDLE_PROCESSING_MODES)[number];
export const BUNDLE_RETENTION_TYPES = ['MESSAGE_EXPIRE_POLICY', 'CONVERSATION_EXPIRE_POLICY', 'PERSIST_RETENTION_POLICY'] as const;
type BundleRetentionType = (typeof BUNDLE_RETENTION_TYPES)[number];
/** The SMS app's statuses the spec names, and ACTIVE once it is provisioned. */
type BundleSmsAppStatus = 'PROVISIONING_ADD' | 'PROVISIONING_UPDATE' | 'PROVISIONING_ADD_FAILED' | 'PROVISIONING_UPDATE_FAILED' | 'ACTIVE';

/** A reviewer's or the platform's comment on a template, sender or account. */
interface ProvisioningComment {
  text: string;
  at: string;
  author: string;
}

// ---------------------------------------------------------------------------------------------
// Webhook triggers and events
// ---------------------------------------------------------------------------------------------

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

/** Bundles (docs/bundle-wire.md): BUNDLE_DONE when a bundle's provisioning has ended, ACTIVE or FAILED. */
export const BUNDLE_TRIGGERS = ['BUNDLE_DONE'] as const;

export type ProvisioningTrigger =
  (typeof CHATA_TRIGGERS)[number] | (typeof RCS_TRIGGERS)[number] | (typeof CHATB_TRIGGERS)[number] | (typeof BUNDLE_TRIGGERS)[number];

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
  /** CHATA_SENDER_QUALITY_RATING_CHANGED: the sender's new quality rating. */
  qualityRating?: string;
  /** CHATA_SENDER_DAILY_LIMIT_CHANGED: the sender's new messaging limit (tier). */
  messagingLimit?: string;
  /** CHATA_WABA_ACCOUNT_CHANGED for the account: its ban state at the event (a hint; the account is read). */
  banState?: ChataBanState | (string & {});
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

// --- bundles (docs/bundle-wire.md) ---------------------------------------------------------

export interface BundleRetentionPolicy {
  retentionType: BundleRetentionType;
  /** 1..3650 */
  ttlDays: number;
}

/** Unsuccessful conversation-app webhook deliveries, as the platform reports them on the bundle. */
interface BundleWebhookDeliveryStatus {
  target: string;
  status: string;
  httpStatus?: number;
  message?: string;
  lastAttemptTime?: string;
}

interface BundleError {
  /** SUBPROJECT, CONVERSATION_APP or SMS_APP: the resource whose provisioning failed. */
  resource: string;
  code: string;
  message: string;
}

export interface Bundle {
  id: string;
  name: string;
  region: ConversationRegion;
  state: BundleState;
  labels: Record<string, string>;
  subproject: { id: string; name?: string; created: boolean };
  convApp?: { id: string; name: string; processingMode: BundleProcessingMode; retentionPolicy: BundleRetentionPolicy };
  smsApp?: { id: string; name: string; status: BundleSmsAppStatus };
  webhookDeliveryStatuses: BundleWebhookDeliveryStatus[];
  /** Set when FAILED: what failed, in the platform's words. */
  errors?: BundleError[];
  createTime?: string;
  updateTime?: string;
}

// --- templates (CHATA and CHATB alike) -----------------------------------------------------

/** Example media of a HEADER (limits: image 5 MB, video 16 MB, document 100 MB). */
interface TemplateMediaExample {
  mediaType: string;
  sizeBytes: number;
}

/**
 * One component. Only `type` is fixed; the rest (text, buttons, cards, `format` and `example` of a
 * HEADER, ...) passes through as the platform defines it.
 */
export interface TemplateComponent {
  type: TemplateComponentType;
  format?: TemplateHeaderFormat;
  text?: string;
  example?: TemplateMediaExample | Record<string, unknown>;
  buttons?: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

export interface CreateTemplateRequest {
  /** 1..512 characters of [a-z0-9_]; name + language is unique per channel. */
  name: string;
  /** e.g. en_US */
  language: string;
  category: TemplateCategory;
  /** DRAFT keeps it editable; SUBMIT (the default) sends it to review. */
  status?: ProvisioningRequestStatus;
  allowCategoryChange?: boolean;
  /** AUTHENTICATION templates only. */
  messageSendTtlSeconds?: number;
  /** A BODY component is required. */
  components: TemplateComponent[];
}

export interface UpdateTemplateRequest {
  category?: TemplateCategory;
  components?: TemplateComponent[];
  allowCategoryChange?: boolean;
  /** SUBMIT (the default) sends the edit to review: state IN_PROGRESS, version + 1. */
  status?: ProvisioningRequestStatus;
}

export interface Template {
  id: string;
  name: string;
  language: string;
  category: TemplateCategory;
  state: TemplateState;
  rejectionCode?: RejectionCode;
  qualityScore?: QualityScore;
  allowCategoryChange: boolean;
  messageSendTtlSeconds?: number;
  components: TemplateComponent[];
  comments: ProvisioningComment[];
  version: number;
  createTime?: string;
  updateTime: string;
  /**
   * An edit of an APPROVED, PAUSED or DISABLED template, kept apart while the live version goes on being used:
   * reviewed (IN_PROGRESS) unless saved as a DRAFT; approved, the template takes it (and its version); rejected, it
   * stays REJECTED until edited again or deleted (`DELETE .../templates/{id}/changes`). Ours: docs/provisioning-wire.md.
   */
  pendingChange?: PendingTemplateChange;
}

export interface PendingTemplateChange {
  version: number;
  state: 'DRAFT' | 'IN_PROGRESS' | 'REJECTED';
  category: TemplateCategory;
  components: TemplateComponent[];
  allowCategoryChange: boolean;
  rejectionCode?: RejectionCode;
}

// --- RCS senders ---------------------------------------------------------------------------

export interface CreateRcsSenderRequest {
  /** 1..100 characters; relayflow's idempotency key for RCS senders. */
  displayName: string;
  /** At most 512 characters. */
  description: string;
  /** http(s) URLs of at most 255 characters. */
  websites: Array<{ url: string }>;
  /** E.164 or unformatted digits. */
  brandPhoneNumber: string;
  /** Must be 1440 x 448 (400 file_has_wrong_dimensions otherwise). */
  banner: { url: string; width: number; height: number };
  logo?: { url: string };
  useCase: RcsUseCase;
  /** ISO 3166-1 alpha-2. */
  countries: string[];
}

export interface RcsCountryStatus {
  status: RcsCountryState;
  operators: Record<string, RcsOperatorState>;
}

export interface RcsTestNumber {
  phoneNumber: string;
  features: RcsTestNumberFeature[];
  state: string;
}

export interface RcsSender {
  id: string;
  agentId: string;
  displayName: string;
  state: RcsSenderState;
  countryStatus: Record<string, RcsCountryStatus>;
  comments: ProvisioningComment[];
  testNumbers: RcsTestNumber[];
  createTime?: string;
  updateTime?: string;
  // Echoed by the platform when present; not guaranteed.
  description?: string;
  useCase?: RcsUseCase;
  countries?: string[];
  websites?: Array<{ url: string }>;
  brandPhoneNumber?: string;
  banner?: { url: string; width: number; height: number };
  logo?: { url: string };
}

export interface RcsQuestion {
  id: string;
  text: string;
  required: boolean;
  /** Set on country questions (e.g. FR `siren`, US `us_*`). */
  country?: string;
}

export interface RcsQuestionnaire {
  useCase: RcsUseCase;
  questions: RcsQuestion[];
}

/** The contact of a launch or relaunch: exactly one of the two. */
export type RcsLaunchContact = { email: string; phoneNumber?: never } | { phoneNumber: string; email?: never };

// --- CHATA senders -------------------------------------------------------------------------

export interface CreateChataSenderRequest {
  /** E.164; relayflow's idempotency key for CHATA senders. */
  phoneNumber: string;
  displayName: string;
  /** At most 512 characters. */
  description?: string;
  vertical?: ChataVertical;
  /** The connected conversation app; `region` must be the app's region. */
  conversationApiAppDetails?: { appId: string; region: ConversationRegion };
  platformLocalStorage?: ChataLocalStorage;
  status?: ProvisioningRequestStatus;
  saveDraftOnFailure?: boolean;
}

/** Embedded sign-up: both fields required (the older access-token/code body is deprecated). */
export interface CreateEmbeddedChataSenderRequest {
  businessAccountId: string;
  phoneNumberId: string;
}

export interface ChataSender {
  id: string;
  phoneNumber?: string;
  displayName?: string;
  state: ChataSenderState;
  errorCode?: ChataSenderErrorCode;
  errorReason?: string;
  maxTps?: number;
  compatibleRegions: string[];
  comments: ProvisioningComment[];
  createTime?: string;
  updateTime?: string;
  /** A live sender's health (CHATA_SENDER_QUALITY_RATING_CHANGED, _DAILY_LIMIT_CHANGED); absent until the platform rates it. */
  qualityRating?: (typeof CHATA_QUALITY_RATINGS)[number];
  messagingLimit?: (typeof CHATA_MESSAGING_LIMITS)[number];
  /** The business profile (spec part G); absent until set. */
  description?: string;
  about?: string;
  photoUrl?: string;
  // Echoed for embedded senders when the platform sends them; not guaranteed.
  businessAccountId?: string;
  phoneNumberId?: string;
}

/** `POST .../chata/senders/{senderId}/register`: sends a verification code to the sender's number. */
export interface RegisterChataSenderRequest {
  method: ChataVerificationMethod;
}

export interface RegisterChataSenderResponse {
  id: string;
  method: ChataVerificationMethod | 'UNRECOGNIZED';
  /** ISO time the request was accepted. */
  accepted: string;
  verificationCodeSent: boolean;
}

/** `POST .../chata/senders/{senderId}/verify`: exactly 6 characters; a wrong one is 400 `wrong_otp`. */
export interface VerifyChataSenderRequest {
  code: string;
}

/** The project's CHATA business account (`GET /v1/projects/{projectId}/chata`, as the public reference reads the WhatsApp account). */
export interface ChataAccount {
  /** The account's ID (one account per project). */
  id: string;
  state?: ChataAccountState;
  businessAccountId?: string;
  primaryBusinessLocation?: string;
  wabaEnabledForInsights?: boolean;
  /** Absent when the account was never banned. */
  banState?: ChataBanState;
  /** ISO time the ban state took (or takes, SCHEDULE_FOR_DISABLE) effect. */
  banDate?: string;
  updateTime?: string;
}

// --- CHATB senders -------------------------------------------------------------------------

interface ChatbSubcategory {
  code: string;
  name: string;
  nameEnglish: string;
}

export interface ChatbCategory extends ChatbSubcategory {
  subcategories: ChatbSubcategory[];
}

export interface CreateChatbSenderRequest {
  /** 1..64 characters; relayflow's idempotency key for CHATB senders. */
  displayName: string;
  /** Must be a code from the categories list. */
  categoryCode: string;
  subcategoryCode?: string;
  /** At most 512 characters. */
  description?: string;
  status?: ProvisioningRequestStatus;
}

export interface ChatbSender {
  id: string;
  displayName?: string;
  categoryCode?: string;
  subcategoryCode?: string;
  description?: string;
  state: ChatbSenderState;
  comments: ProvisioningComment[];
  createTime?: string;
  updateTime?: string;
}

// --- sender updates ------------------------------------------------------------------------
// `PATCH .../<channel>/senders/{senderId}`: only the fields given change (docs/provisioning-wire.md says which
// fields, and which channels review the change). The name a sender was created with is relayflow's key to find
// it again, so no update renames one.

export const CHATB_SENDER_UPDATABLE = ['description', 'categoryCode', 'subcategoryCode'] as const;
export type UpdateChatbSenderRequest = Partial<Pick<CreateChatbSenderRequest, (typeof CHATB_SENDER_UPDATABLE)[number]>>;

/** The business profile's fields the spec names on a CHATA sender; the platform applies them at once (no review). */
export const CHATA_SENDER_UPDATABLE = ['description', 'about', 'photoUrl'] as const;
export interface UpdateChataSenderRequest {
  /** At most 512 characters. */
  description?: string;
  about?: string;
  photoUrl?: string;
}

/** The agent's profile as a create takes it; a LAUNCHED sender's change is reviewed. */
export const RCS_SENDER_UPDATABLE = ['description', 'websites', 'brandPhoneNumber', 'banner', 'logo'] as const;
export type UpdateRcsSenderRequest = Partial<Pick<CreateRcsSenderRequest, (typeof RCS_SENDER_UPDATABLE)[number]>>;

// --- webhooks ------------------------------------------------------------------------------

export interface CreateWebhookRequest {
  target: string;
  /** At least 8 characters; the HMAC key of the deliveries. */
  secret: string;
  triggers: ProvisioningTrigger[];
}

/** `PATCH .../webhooks/{webhookId}`: only the fields given change (public API reference; docs/provisioning-wire.md). */
export type UpdateWebhookRequest = Partial<CreateWebhookRequest>;

/** The platform never returns the secret. */
export interface Webhook {
  id: string;
  target: string;
  triggers: ProvisioningTrigger[];
}
