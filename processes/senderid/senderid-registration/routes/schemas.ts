// Request schemas of the sender ID registration routes (also the onboarding's senderIds items).
import Type from 'typebox';
import { REGISTRATION_TYPES } from '../../../../common/wire/senderid.js';

// Bounded so that no body the document allows exceeds the API's 1 MiB JSON limit, even all \u-escaped.
const Value = Type.String({ maxLength: 256 });
/** The platform's IDs (policies, attachment definitions): the characters and length its paths take (100: the sandbox router's limit per path parameter). */
export const PlatformId = (description?: string) =>
  Type.String({ pattern: '^[A-Za-z0-9._-]{1,100}$', maxLength: 100, ...(description ? { description } : {}) });
const Section = Type.Array(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Value, { maxProperties: 10 }), { maxItems: 3 });
const RequestDetails = Type.Array(
  Type.Object(
    {
      senderIdDetails: Type.Optional(Section),
      additionalDetails: Type.Optional(Section),
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: 3, description: 'As the platform takes them: inside each entry the objects of each array are merged' },
);
const Contacts = Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { maxItems: 20 });
export const RegistrationTypeSchema = Type.Enum([...REGISTRATION_TYPES]);

export const StartRegistration = Type.Object(
  {
    key: Type.String({
      pattern: '^[A-Za-z0-9._-]{1,64}$',
      description: 'Your key for this registration: the business key of the process (may not start with reg-)',
    }),
    policyId: PlatformId('The policy (scope) the market requirements led to'),
    marketCode: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: "Checked against the policy's" })),
    registrationType: Type.Optional(RegistrationTypeSchema),
    requestDetails: RequestDetails,
    notificationContacts: Type.Optional(Contacts),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 20 })),
    overdueGraceSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 31_536_000,
        description: "Report overdue this long after the platform's etaDate (default RELAYFLOW_SENDERID_OVERDUE_GRACE_MS)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateBody = Type.Object(
  {
    requestDetails: Type.Optional(RequestDetails),
    notificationContacts: Type.Optional(Contacts),
  },
  { additionalProperties: false, minProperties: 1 },
);

/**
 * The upload route's body limit: the base64 of a file of up to 1 MiB and its fields, over the API's 1 MiB default.
 * Not more: schemathesis (npm run fuzz) cannot generate a base64 `content` at a maxLength of 2,000,000 or more.
 */
export const ATTACHMENT_BODY_LIMIT = 2 * 1024 * 1024;

export const UploadBody = Type.Object(
  {
    attachmentDefinitionId: PlatformId("The policy's attachment definition"),
    fileName: Type.String({ minLength: 1, maxLength: 255 }),
    mimeType: Type.String({ minLength: 1, maxLength: 255, pattern: '^[a-zA-Z0-9!#$&^_.+-]+/[a-zA-Z0-9!#$&^_.+-]+$' }),
    content: Type.String({
      minLength: 4,
      maxLength: 1_398_104,
      pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
      description: 'The file, base64: up to 1 MiB (the JSON body is limited to 2 MiB)',
    }),
    documentType: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
