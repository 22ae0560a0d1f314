// Area F, sender ID registrations: the resources of docs/senderid-wire.md.

export const REGISTRATION_TYPES = ['ALPHANUMERIC_SENDER_ID', 'LONG_NUMBER', 'SHORT_CODE', 'RCS_AGENT'] as const;
export type RegistrationType = (typeof REGISTRATION_TYPES)[number];

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

export const FINAL_STATES: readonly RegistrationState[] = ['APPROVED', 'REJECTED'];
export const EDITABLE_STATES: readonly RegistrationState[] = ['IN_QUEUE', 'PENDING', 'ON_HOLD', 'PENDING_ATTACHMENTS'];

export type UploadStatus = 'WAITING' | 'COMPLETED' | 'FAILED';

interface Validation {
  rule: 'pattern' | 'minLength' | 'maxLength' | 'enum';
  value: string | number | string[];
  message: string;
}

export interface Field {
  section: 'senderIdDetails' | 'additionalDetails';
  key: string;
  label: string;
  required: boolean;
  validations: Validation[];
}

export interface AttachmentDefinition {
  id: string;
  title: string;
  description: string;
  mandatory: boolean;
  template: boolean;
  acceptedMimeTypes: string[];
  maxSizeBytes: number;
}

export interface Policy {
  id: string;
  marketCode: string;
  registrationType: RegistrationType;
  name: string;
  senderIdAssigned: boolean;
  manualApproval: boolean;
  fields: Field[];
  attachmentDefinitions: AttachmentDefinition[];
}

interface SpecialCondition {
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

export interface RequestDetail {
  senderIdDetails: Record<string, unknown>[];
  additionalDetails: Record<string, unknown>[];
}

interface RegistrationLog {
  createTime: string;
  registrationState: RegistrationState;
  message: string;
}

export interface Registration {
  id: string;
  projectId: string;
  policyId: string;
  marketCode: string;
  registrationType: RegistrationType;
  senderId: string | null;
  status: RegistrationState;
  requestDetails: RequestDetail[];
  callbackUrl?: string;
  notificationContacts: string[];
  tags: string[];
  owner?: string;
  logs: RegistrationLog[];
  etaDate: string | null;
  attachments: Attachment[];
  createTime: string;
  updateTime: string;
}

/** Platform times: UTC without an offset, `2021-11-03T14:30:03` (the public description's format). */
export const platformTime = (d: Date = new Date()): string => d.toISOString().slice(0, 19);
export const platformDate = (d: Date): string => d.toISOString().slice(0, 10);
