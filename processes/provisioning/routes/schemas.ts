// Request schemas of the provisioning routes (spec part G rules: names and descriptions at most 512
// characters, website URLs at most 255, enum values listed in errors), and the rules a schema cannot
// say well (header example media per format, button counts, banner size), as errors naming the field.
import Type, { type TObject, type TProperties } from 'typebox';
import { CAMPAIGN_KEY_PATTERN } from '../../../contracts/ids.js';
import type { ErrorDetail } from '../../../api/errors.js';
import { PhoneNumber, ProjectId } from '../../../api/schemas.js';
import { TEMPLATE_CATEGORIES, TEMPLATE_COMPONENT_TYPES, TEMPLATE_HEADER_FORMATS } from '../../../common/wire/provisioning.js';
import { MB, TEMPLATE_HEADER_MEDIA, TEMPLATE_MAX_BUTTONS, TEMPLATE_MAX_URL_BUTTONS } from '../../../common/wire/template-rules.js';

const RCS_USE_CASES = ['MULTIUSE', 'TRANSACTIONAL', 'PROMOTIONAL', 'OTP'] as const;
const VERTICALS = ['ALCOHOL', 'ONLINE_GAMBLING', 'OTC_DRUGS', 'PHYSICAL_GAMBLING', 'OTHER'] as const;
const LOCAL_STORAGE = ['AE', 'AU', 'BH', 'CA', 'CH', 'GB', 'ID', 'IN', 'JP', 'KR', 'SG', 'ZA'] as const;
const REGIONS = ['US', 'EU', 'BR'] as const;

const BANNER = { width: 1440, height: 448 } as const;

const Text512 = (description?: string) => Type.String({ minLength: 1, maxLength: 512, ...(description ? { description } : {}) });
const OverdueAfterSeconds = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 31_536_000,
    description: 'Report the approval overdue after this long under review (default from RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS)',
  }),
);

const Button = Type.Object(
  {
    type: Type.String({ pattern: '^[A-Z][A-Z_]{0,39}$', description: 'QUICK_REPLY, URL, PHONE_NUMBER, OTP, ...' }),
    text: Type.Optional(Type.String({ maxLength: 512 })),
    url: Type.Optional(Type.String({ maxLength: 2000 })),
    phoneNumber: Type.Optional(PhoneNumber()),
    otpType: Type.Optional(Type.Enum(['COPY_CODE', 'ONE_TAP', 'ZERO_TAP'])),
    autofillText: Type.Optional(Type.String({ maxLength: 512 })),
    example: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
);

const Component = Type.Object(
  {
    type: Type.Enum(TEMPLATE_COMPONENT_TYPES),
    format: Type.Optional(Type.Enum(TEMPLATE_HEADER_FORMATS, { description: 'HEADER only' })),
    text: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    example: Type.Optional(
      Type.Object(
        {
          mediaType: Type.Optional(Type.String({ maxLength: 128 })),
          sizeBytes: Type.Optional(Type.Integer({ minimum: 1 })),
          headerText: Type.Optional(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 10 })),
          bodyText: Type.Optional(Type.Array(Type.Array(Type.String({ maxLength: 512 }), { maxItems: 20 }), { maxItems: 10 })),
        },
        { additionalProperties: false },
      ),
    ),
    buttons: Type.Optional(Type.Array(Button, { minItems: 1 })),
    cards: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 10, description: 'CAROUSEL cards, as the platform defines them' })),
    addSecurityRecommendation: Type.Optional(Type.Boolean()),
    codeExpirationMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 })),
  },
  { additionalProperties: false },
);

const Components = Type.Array(Component, { minItems: 1, maxItems: 10 });

export const StartTemplate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 512, pattern: '^[a-z0-9_]+$', description: 'a-z, 0-9 and _; with language, the business key of the process' }),
    language: Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2,4})?$', description: 'e.g. en_US' }),
    category: Type.Enum(TEMPLATE_CATEGORIES),
    components: Components,
    allowCategoryChange: Type.Optional(
      Type.Boolean({ description: 'Lets the platform change the category, and relayflow resubmit an INCORRECT_CATEGORY rejection by itself' }),
    ),
    messageSendTtlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, description: 'AUTHENTICATION templates only' })),
    createAsDraft: Type.Optional(Type.Boolean({ description: 'Create a DRAFT, then submit it' })),
    alternativeCategory: Type.Optional(
      Type.Enum(TEMPLATE_CATEGORIES, { description: 'Used for an INCORRECT_CATEGORY rejection when the platform names no category' }),
    ),
    overdueAfterSeconds: OverdueAfterSeconds,
  },
  { additionalProperties: false },
);

export const Resubmit = Type.Object(
  {
    category: Type.Optional(Type.Enum(TEMPLATE_CATEGORIES)),
    components: Type.Optional(Components),
    allowCategoryChange: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Contact = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    phoneNumber: Type.Optional(PhoneNumber()),
  },
  { additionalProperties: false, description: 'Exactly one of email, phoneNumber' },
);

const Answers = Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]{1,64}$' }), Type.String({ maxLength: 4096 }), {
  description: 'questionId → answer (see the questionnaire of the use case and countries)',
});

/** The RCS sender's profile fields, as a start and a change take them. */
const RcsProfile = {
  websites: Type.Array(Type.Object({ url: Type.String({ maxLength: 255, pattern: '^https?://[^\\s]+$' }) }, { additionalProperties: false }), {
    minItems: 1,
    maxItems: 10,
  }),
  brandPhoneNumber: Type.String({ pattern: '^(\\+[1-9]\\d{6,14}|\\d{6,15})$', description: 'E.164 or unformatted digits' }),
  banner: Type.Object(
    {
      url: Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$' }),
      width: Type.Integer({ description: 'must be 1440' }),
      height: Type.Integer({ description: 'must be 448' }),
    },
    { additionalProperties: false },
  ),
  logo: Type.Object({ url: Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$' }) }, { additionalProperties: false }),
};

export const StartRcsSender = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: 100, description: 'The business key of the process' }),
    description: Text512(),
    websites: RcsProfile.websites,
    brandPhoneNumber: RcsProfile.brandPhoneNumber,
    banner: RcsProfile.banner,
    logo: Type.Optional(RcsProfile.logo),
    useCase: Type.Enum(RCS_USE_CASES),
    countries: Type.Array(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' }), { minItems: 1, maxItems: 50, uniqueItems: true }),
    answers: Answers,
    contact: Contact,
    testNumbers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            phoneNumber: PhoneNumber(),
            features: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), { maxItems: 20 })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20, description: 'Added once the platform allows it (after the launch)' },
      ),
    ),
    overdueAfterSeconds: OverdueAfterSeconds,
  },
  { additionalProperties: false },
);

export const Relaunch = Type.Object(
  {
    contact: Type.Optional(Contact),
    answers: Type.Optional(Answers),
  },
  { additionalProperties: false },
);

/** How a CHATA sender blocked on an unverified number gets its code, and how long the process waits for it. */
const PhoneVerification = Type.Optional(
  Type.Object(
    {
      method: Type.Optional(Type.Enum(['SMS', 'VOICE'], { description: 'How the platform sends the code to the number (default SMS)' })),
      timeoutSeconds: Type.Optional(
        Type.Integer({
          minimum: 10,
          maximum: 2_592_000,
          description: 'End the process FAILED when no right code was submitted this long after the wait began (default 86400, a day)',
        }),
      ),
    },
    {
      additionalProperties: false,
      description:
        'When the platform reports the number unverified (NO_VERIFIED_PHONE_NUMBER), the process requests a code and waits (WAITING_FOR_CALLER) for POST /v1/senders/{processId}/verify-phone',
    },
  ),
);

export const VerifyPhone = Type.Object(
  { code: Type.String({ pattern: '^\\S{6}$', description: 'The code the number received: exactly 6 characters, no spaces' }) },
  { additionalProperties: false },
);

export const StartChataSender = Type.Object(
  {
    phoneNumber: PhoneNumber('Phone number in international format; the business key of the process'),
    displayName: Text512(),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    vertical: Type.Optional(Type.Enum(VERTICALS)),
    conversationApiAppDetails: Type.Optional(
      Type.Object(
        {
          appId: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$', description: 'ULID' }),
          region: Type.Enum(REGIONS),
        },
        { additionalProperties: false },
      ),
    ),
    platformLocalStorage: Type.Optional(Type.Enum(LOCAL_STORAGE)),
    saveDraftOnFailure: Type.Optional(Type.Boolean()),
    phoneVerification: PhoneVerification,
    overdueAfterSeconds: OverdueAfterSeconds,
  },
  { additionalProperties: false },
);

export const StartEmbeddedChataSender = Type.Object(
  {
    businessAccountId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    phoneNumberId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The business key of the process' }),
    phoneNumber: Type.Optional(PhoneNumber('The number behind phoneNumberId, if known, in international format')),
    phoneVerification: PhoneVerification,
    overdueAfterSeconds: OverdueAfterSeconds,
  },
  { additionalProperties: false },
);

export const StartChatbSender = Type.Object(
  {
    displayName: Type.String({ minLength: 1, maxLength: 64, description: 'The business key of the process' }),
    categoryCode: Type.String({ minLength: 1, maxLength: 64, description: 'A code from GET /v1/senders/chatb/categories' }),
    subcategoryCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    description: Type.Optional(Type.String({ maxLength: 512 })),
    overdueAfterSeconds: OverdueAfterSeconds,
  },
  { additionalProperties: false },
);

/**
 * A change of a live sender: only the fields given change, each kind taking its own (CHATA: description, about,
 * photoUrl; CHATB: description, categoryCode, subcategoryCode; RCS: description, websites, brandPhoneNumber, banner,
 * logo). The name a sender was created with is its process's business key: no change renames it.
 */
export const UpdateSender = Type.Object(
  {
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    about: Type.Optional(Type.String({ minLength: 1, maxLength: 139, description: "CHATA: the profile's about text" })),
    photoUrl: Type.Optional(Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$', description: "CHATA: the profile's photo" })),
    categoryCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'CHATB: a code from GET /v1/senders/chatb/categories' })),
    subcategoryCode: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'CHATB' })),
    websites: Type.Optional(RcsProfile.websites),
    brandPhoneNumber: Type.Optional(RcsProfile.brandPhoneNumber),
    banner: Type.Optional(RcsProfile.banner),
    logo: Type.Optional(RcsProfile.logo),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const StartBundle = Type.Object(
  {
    key: Type.String({
      pattern: CAMPAIGN_KEY_PATTERN.source,
      description: 'Your key for the bundle (1..64 of A-Za-z0-9._-): the same key answers the same process',
    }),
    displayName: Type.String({ minLength: 1, maxLength: 128, description: "The bundle's name, and the default name of the apps (and subproject) it creates" }),
    region: Type.Enum(['US', 'EU', 'BR']),
    subprojectId: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$', description: 'Put the apps in this existing subproject (e.g. one a subproject process made)' }),
    ),
    createSubproject: Type.Optional(
      Type.Boolean({ description: 'Let the bundle create a new subproject (not with subprojectId). Neither: the apps go in the project' }),
    ),
    subprojectName: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Name of the new subproject (createSubproject)' })),
    conversationApp: Type.Optional(Type.Boolean({ description: 'Create the conversation app (default true)' })),
    processingMode: Type.Optional(Type.Enum(['DISPATCH', 'CONVERSATION'], { description: "The conversation app's processing mode (default DISPATCH)" })),
    retentionPolicy: Type.Optional(
      Type.Object(
        {
          retentionType: Type.Enum(['MESSAGE_EXPIRE_POLICY', 'CONVERSATION_EXPIRE_POLICY', 'PERSIST_RETENTION_POLICY']),
          ttlDays: Type.Integer({ minimum: 1, maximum: 3650 }),
        },
        { additionalProperties: false, description: "The conversation app's retention policy (default MESSAGE_EXPIRE_POLICY, 180 days)" },
      ),
    ),
    smsApp: Type.Optional(Type.Boolean({ description: 'Create the SMS app (default true)' })),
    smsAppName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    overdueAfterSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 31_536_000,
        description: 'Report the provisioning overdue after this long (default from RELAYFLOW_PROVISIONING_OVERDUE_AFTER_MS)',
      }),
    ),
  },
  { additionalProperties: false },
);

type ComponentInput = {
  type: string;
  format?: string;
  example?: { mediaType?: string; sizeBytes?: number };
  buttons?: { type: string }[];
};

/** Component rules: one BODY, one of each type, header example media type and size, button counts. */
export function componentErrors(components: ComponentInput[], field: string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const add = (f: string, rule: string, message: string) => errors.push({ field: f, rule, message });
  const seen = new Set<string>();
  components.forEach((c, i) => {
    const p = `${field}.${i}`;
    if (seen.has(c.type)) add(`${p}.type`, 'unique', `at most one ${c.type} component is allowed`);
    seen.add(c.type);
    if (c.type === 'HEADER') {
      if (!c.format) add(`${p}.format`, 'required', 'is required for a HEADER');
      const media = c.format ? TEMPLATE_HEADER_MEDIA[c.format] : undefined;
      if (media) {
        if (!c.example?.mediaType) add(`${p}.example.mediaType`, 'required', `is required for ${c.format} headers`);
        else if (!media.types.includes(c.example.mediaType))
          add(`${p}.example.mediaType`, 'enum', `for ${c.format} headers must be one of ${media.types.join(', ')}`);
        if (c.example?.sizeBytes === undefined) add(`${p}.example.sizeBytes`, 'required', `is required for ${c.format} headers`);
        else if (c.example.sizeBytes > media.maxBytes)
          add(`${p}.example.sizeBytes`, 'maximum', `must be at most ${media.maxBytes} bytes (${media.maxBytes / MB} MB) for ${c.format} headers`);
      }
    } else if (c.format) add(`${p}.format`, 'not_allowed', 'is for HEADER components only');
    const buttons = c.buttons ?? [];
    if (c.type === 'BUTTONS' && buttons.length === 0) add(`${p}.buttons`, 'required', 'is required for a BUTTONS component');
    if (buttons.length > TEMPLATE_MAX_BUTTONS) add(`${p}.buttons`, 'maxItems', `must have at most ${TEMPLATE_MAX_BUTTONS} buttons (got ${buttons.length})`);
    const urls = buttons.filter((b) => b.type === 'URL').length;
    if (urls > TEMPLATE_MAX_URL_BUTTONS) add(`${p}.buttons`, 'maxUrlButtons', `must have at most ${TEMPLATE_MAX_URL_BUTTONS} URL buttons (got ${urls})`);
  });
  if (!seen.has('BODY')) add(field, 'required', 'must contain a BODY component');
  return errors;
}

/** The banner must be exactly 1440 x 448 pixels. */
export function bannerErrors(banner: { width: number; height: number }, field = 'body.banner'): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  if (banner.width !== BANNER.width)
    errors.push({ field: `${field}.width`, rule: 'banner_size', message: `must be ${BANNER.width} (the banner is ${BANNER.width}x${BANNER.height} pixels)` });
  if (banner.height !== BANNER.height)
    errors.push({ field: `${field}.height`, rule: 'banner_size', message: `must be ${BANNER.height} (the banner is ${BANNER.width}x${BANNER.height} pixels)` });
  return errors;
}

/**
 * A start on its own route with `projectId`: the resource is made in that project (a customer's subproject), its
 * process ID still under the platform project. An onboarding's steps bind their subproject's instead.
 */
export const inProject = <P extends TProperties>(start: TObject<P>) =>
  Type.Object(
    {
      ...start.properties,
      projectId: Type.Optional(
        ProjectId(
          "The project to make it in: a customer's subproject (used with the platform project's key). The platform project when absent. With a customer's (tenant) key, one of that customer's READY subprojects (422 not_customer_project).",
        ),
      ),
    },
    { additionalProperties: false },
  );
