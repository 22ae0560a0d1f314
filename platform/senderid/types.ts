// Sender ID registrations (area F): the resources of docs/senderid-wire.md, as the client reads and sends them.

export const REGISTRATION_TYPES = ['ALPHANUMERIC_SENDER_ID', 'LONG_NUMBER', 'SHORT_CODE', 'RCS_AGENT'] as const;
export type RegistrationType = (typeof REGISTRATION_TYPES)[number];

/** Every state a registration can report (wire notes; the public description). DRAFT is made in the dashboard only. */
export type RegistrationState =
  'DRAFT' | 'IN_QUEUE' | 'IN_PROGRESS' | 'PENDING' | 'ON_HOLD' | 'PENDING_APPROVAL' | 'PENDING_ATTACHMENTS' | 'APPROVED' | 'REJECTED';

/** States in which the platform accepts an update (else 409). */
export const EDITABLE_REGISTRATION_STATES: readonly RegistrationState[] = ['IN_QUEUE', 'PENDING', 'ON_HOLD', 'PENDING_ATTACHMENTS'];

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
  status: string;
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

export interface TemplateFile {
  fileName: string;
  contentType: string;
  content: Buffer;
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
  /** UTC without an offset (`2021-11-03T14:30:03`): parse with platformTimeToMs. */
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

export interface AttachmentUpload {
  fileName: string;
  mimeType: string;
  /** The file's bytes (sent base64-encoded). */
  content: Buffer;
  /** Defaults, on the platform, to the definition's title. */
  documentType?: string;
}

// --- callbacks -------------------------------------------------------------------------------

export interface CallbackConfiguration {
  hmacSecret: string;
  projectId: string;
}

/** A platform time (`2021-11-03T14:30:03`, UTC without an offset) in ms since the epoch; NaN when unreadable. */
export function platformTimeToMs(value: string): number {
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value);
  return Date.parse(hasZone ? value : `${value}Z`);
}
