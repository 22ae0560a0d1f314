// Wire shapes, once, so client and sandbox cannot drift: the platform's request and response shapes live in common/wire/<area>.ts, imported by
// relayflow's clients (platform/) and by the sandbox; the sandbox keeps its own validation and internal records (which
// extend these), so it stays an independent check. Here: sender ID registrations (area F), docs/senderid-wire.md.

export const REGISTRATION_TYPES = ['ALPHANUMERIC_SENDER_ID', 'LONG_NUMBER', 'SHORT_CODE', 'RCS_AGENT'] as const;
export type RegistrationType = (typeof REGISTRATION_TYPES)[number];

/** Every state a registration can report (wire notes; the public description). DRAFT is made in the dashboard only. */
export const REGISTRATION_STATES = [
  'DRAFT',
  'IN_QUEUE',
  'IN_PROGRESS',
  'PENDING',
  'ON_HOLD',
  'PENDING_APPROVAL',
  'PENDING_ATTACHMENTS',
  'APPROVED',
  'REJECTED',
] as const;
export type RegistrationState = (typeof REGISTRATION_STATES)[number];

export type UploadStatus = 'WAITING' | 'COMPLETED' | 'FAILED';

// --- markets ---------------------------------------------------------------------------------

export interface MarketQuery {
  marketCode?: string;
  /** The platform's default is ALPHANUMERIC_SENDER_ID. */
  registrationType?: RegistrationType;
}

export interface Market {
  marketCode: string;
  marketName: string;
}

export interface SpecialCondition {
  /** Set on a leaf: the answers so far lead to this policy (the scope). */
  policyId?: string;
  answer: string;
  chainedSpecialConditions: SpecialCondition[];
}

export interface MarketVersion {
  id: string;
  marketCode: string;
  registrationType: RegistrationType;
  specialConditions: { prompt: string; chainedSpecialConditions: SpecialCondition[] };
  status: 'ACTIVE';
  majorVersion: number;
  minorVersion: number;
  createTime: string;
}

export interface MarketDetails {
  marketVersions: MarketVersion[];
  totalSize: number;
  nextPageToken: string;
}

// --- policies --------------------------------------------------------------------------------

export type FieldSection = 'senderIdDetails' | 'additionalDetails';

interface FieldValidation {
  rule: 'pattern' | 'minLength' | 'maxLength' | 'enum';
  value: string | number | string[];
  message: string;
}

/** `Field` in docs/senderid-wire.md. */
export interface PolicyField {
  section: FieldSection;
  key: string;
  label: string;
  required: boolean;
  validations: FieldValidation[];
}

export interface AttachmentDefinition {
  id: string;
  title: string;
  description: string;
  mandatory: boolean;
  /** True when a template to fill in can be downloaded. */
  template: boolean;
  acceptedMimeTypes: string[];
  maxSizeBytes: number;
}

export interface Policy {
  id: string;
  marketCode: string;
  registrationType: RegistrationType;
  name: string;
  /** LONG_NUMBER / SHORT_CODE: the platform assigns the sender ID; senderIdDetails are not allowed. */
  senderIdAssigned: boolean;
  /** PENDING_APPROVAL may happen: the account manager approves a manual price. */
  manualApproval: boolean;
  fields: PolicyField[];
  attachmentDefinitions: AttachmentDefinition[];
}

// --- registrations ---------------------------------------------------------------------------

/** Inside each entry, the objects of each array are merged into one map by the platform. */
export interface RequestDetail {
  senderIdDetails?: Array<Record<string, string>>;
  additionalDetails?: Array<Record<string, string>>;
}

export interface CreateRegistrationRequest {
  policyId: string;
  requestDetails: RequestDetail[];
  callbackUrl?: string;
  notificationContacts?: string[];
  tags?: string[];
  owner?: string;
}

export interface UpdateRegistrationRequest {
  callbackUrl?: string;
  notificationContacts?: string[];
  /** Replaces the old ones; validated as on create. */
  requestDetails?: RequestDetail[];
}

interface RegistrationLog {
  createTime: string;
  registrationState: RegistrationState;
  message: string;
}

export interface Attachment {
  attachmentId: string;
  attachmentDefinitionId: string;
  fileName: string;
  mimeType: string;
  documentType: string;
  uploadStatus: UploadStatus;
  createTime: string;
  updateTime: string;
}

export interface Registration {
  id: string;
  projectId: string;
  policyId: string;
  marketCode: string;
  registrationType: RegistrationType;
  /** The requested ID (alphanumeric); null until assigned for LONG_NUMBER / SHORT_CODE. */
  senderId: string | null;
  status: RegistrationState;
  requestDetails: RequestDetail[];
  callbackUrl?: string;
  notificationContacts: string[];
  tags: string[];
  owner?: string;
  logs: RegistrationLog[];
  /** `YYYY-MM-DD`, or null. */
  etaDate: string | null;
  attachments: Attachment[];
  /** UTC without an offset (`2021-11-03T14:30:03`). */
  createTime: string;
  updateTime: string;
}

export interface RegistrationListQuery {
  registrationState?: RegistrationState;
  marketCode?: string;
  senderId?: string;
  /** The platform's default is ALPHANUMERIC_SENDER_ID: a list without it omits long numbers and short codes. */
  registrationType?: RegistrationType;
  /** 1..100 (platform default 20). */
  pageSize?: number;
  pageToken?: string;
}

export interface RegistrationPage {
  registrations: Registration[];
  /** '' on the last page. */
  nextPageToken: string;
  totalSize?: number;
}

// --- callbacks -------------------------------------------------------------------------------

export interface CallbackConfiguration {
  hmacSecret: string;
  projectId: string;
}
