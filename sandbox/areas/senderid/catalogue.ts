// The markets and policies the sandbox serves (docs/senderid-wire.md "Markets"): AU alphanumeric
// (aggregator and brand-owner policies), AU long number and US short code (sender ID assigned).
import type { AttachmentDefinition, PolicyField as Field, MarketVersion, Policy, RegistrationType } from '../../../common/wire/senderid.js';

const MB = 1024 * 1024;
const DOCS = ['application/pdf', 'image/png', 'image/jpeg'];

const text = (section: Field['section'], key: string, label: string, validations: Field['validations'] = [], required = true): Field => ({
  section,
  key,
  label,
  required,
  validations,
});

const COMPANY: Field[] = [
  text('additionalDetails', 'companyName', 'Company name', [{ rule: 'maxLength', value: 100, message: 'at most 100 characters' }]),
  text('additionalDetails', 'website', 'Company website', [{ rule: 'pattern', value: '^https?://[^\\s]+$', message: 'must be an http(s) URL' }]),
  text('additionalDetails', 'email', 'Contact e-mail', [{ rule: 'pattern', value: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', message: 'must be an e-mail address' }]),
];

const ALPHA_SENDER: Field = text('senderIdDetails', 'senderId', 'Sender ID', [
  { rule: 'minLength', value: 3, message: 'at least 3 characters' },
  { rule: 'maxLength', value: 11, message: 'at most 11 characters' },
  { rule: 'pattern', value: '^(?=.*[A-Za-z])[A-Za-z0-9 ]+$', message: 'letters, digits and spaces, with at least one letter' },
]);

const USE_CASE: Field = text('additionalDetails', 'useCase', 'Use case', [
  { rule: 'enum', value: ['TRANSACTIONAL', 'MARKETING', 'OTP'], message: 'one of TRANSACTIONAL, MARKETING, OTP' },
]);

const attachment = (id: string, title: string, mandatory: boolean, template: boolean, maxSizeBytes = 5 * MB): AttachmentDefinition => ({
  id,
  title,
  description: `${title} for this registration.`,
  mandatory,
  template,
  acceptedMimeTypes: DOCS,
  maxSizeBytes,
});

const POLICIES: readonly Policy[] = [
  {
    id: 'pol-au-alpha-aggregator',
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
    name: 'AU alphanumeric, aggregator',
    senderIdAssigned: false,
    manualApproval: false,
    fields: [ALPHA_SENDER, ...COMPANY, USE_CASE],
    attachmentDefinitions: [attachment('att-au-loa', 'Letter of authorisation', true, true)],
  },
  {
    id: 'pol-au-alpha-brand',
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
    name: 'AU alphanumeric, brand owner',
    senderIdAssigned: false,
    manualApproval: false,
    fields: [ALPHA_SENDER, ...COMPANY, USE_CASE],
    attachmentDefinitions: [attachment('att-au-trademark', 'Trademark certificate', false, false)],
  },
  {
    id: 'pol-au-long-standard',
    marketCode: 'AU',
    registrationType: 'LONG_NUMBER',
    name: 'AU long number, standard',
    senderIdAssigned: true,
    manualApproval: false,
    fields: [...COMPANY, USE_CASE],
    attachmentDefinitions: [],
  },
  {
    id: 'pol-us-short-code',
    marketCode: 'US',
    registrationType: 'SHORT_CODE',
    name: 'US short code',
    senderIdAssigned: true,
    manualApproval: true,
    fields: [
      ...COMPANY,
      USE_CASE,
      text('additionalDetails', 'monthlyVolume', 'Expected monthly volume', [{ rule: 'pattern', value: '^[0-9]{1,9}$', message: 'a whole number' }]),
    ],
    attachmentDefinitions: [attachment('att-us-brief', 'Program brief', true, true, 2 * MB)],
  },
];

const CREATED = '2024-09-12T10:45:30.594765Z';

const MARKET_VERSIONS: readonly MarketVersion[] = [
  {
    id: 'mv-au-alpha-8',
    marketCode: 'AU',
    registrationType: 'ALPHANUMERIC_SENDER_ID',
    status: 'ACTIVE',
    majorVersion: 8,
    minorVersion: 0,
    createTime: CREATED,
    specialConditions: {
      prompt: 'Are you the brand owner of the sender ID to be registered?',
      chainedSpecialConditions: [
        { policyId: 'pol-au-alpha-aggregator', answer: 'No', chainedSpecialConditions: [] },
        { policyId: 'pol-au-alpha-brand', answer: 'Yes', chainedSpecialConditions: [] },
      ],
    },
  },
  {
    id: 'mv-au-long-3',
    marketCode: 'AU',
    registrationType: 'LONG_NUMBER',
    status: 'ACTIVE',
    majorVersion: 3,
    minorVersion: 7,
    createTime: CREATED,
    specialConditions: {
      prompt: 'Which type of number do you want?',
      chainedSpecialConditions: [{ policyId: 'pol-au-long-standard', answer: 'Standard', chainedSpecialConditions: [] }],
    },
  },
  {
    id: 'mv-us-short-1',
    marketCode: 'US',
    registrationType: 'SHORT_CODE',
    status: 'ACTIVE',
    majorVersion: 1,
    minorVersion: 2,
    createTime: CREATED,
    specialConditions: {
      prompt: 'Which short code do you want?',
      chainedSpecialConditions: [{ policyId: 'pol-us-short-code', answer: 'Random', chainedSpecialConditions: [] }],
    },
  },
];

export const MARKET_NAMES: Record<string, string> = { AU: 'Australia', US: 'United States' };

export const policyById = (id: string): Policy | undefined => POLICIES.find((p) => p.id === id);

export function marketVersions(marketCode: string | undefined, type: RegistrationType): MarketVersion[] {
  return MARKET_VERSIONS.filter((m) => m.registrationType === type && (marketCode === undefined || m.marketCode === marketCode));
}

/** A small valid PDF standing in for a template to fill in. */
export function templateFile(def: AttachmentDefinition): { fileName: string; mimeType: string; bytes: Buffer } {
  const body = `%PDF-1.4\n% ${def.title}: fill in and upload as attachment ${def.id}\n%%EOF\n`;
  return { fileName: `${def.id}-template.pdf`, mimeType: 'application/pdf', bytes: Buffer.from(body, 'utf8') };
}
