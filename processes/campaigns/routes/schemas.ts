// The campaign routes' request and answer shapes (the OpenAPI document is built from these).
import Type from 'typebox';
import { CONVERSATION_CHANNELS } from '../contract.js';
import { PARAM_NAME_PATTERN } from '../placeholders.js';
import { Outcome as ProcessOutcome, PhoneNumber, ProcessView, ProjectId, Started } from '../../../api/schemas.js';

export const MAX_RECIPIENTS = 500_000;
export const MAX_PARAMS = 20;
export const MAX_PARAM_LENGTH = 1024;
/** 500,000 numbers of up to 32 characters, quoted, with commas: the body limit of the two start routes. */
export const START_BODY_LIMIT = 20 * 1024 * 1024;

const Key = Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Your key for this campaign: the same key always answers the same campaign' });
const Number_ = Type.String({ minLength: 1, maxLength: 32 });
/** A recipient's values for the message's placeholders: personal data, kept in the campaign store only. */
const Params = Type.Record(Type.String(), Type.String({ maxLength: MAX_PARAM_LENGTH }), {
  maxProperties: MAX_PARAMS,
  // propertyNames, not a pattern key: with patternProperties a name outside the pattern would need additionalProperties
  // false, which generators of valid requests (the fuzzer) do not follow.
  propertyNames: { pattern: PARAM_NAME_PATTERN },
  description: "Values for the message's {{placeholders}} by name (letters, digits, _), at most 1,024 characters each",
});
const Recipients = Type.Array(Type.Union([Number_, Type.Object({ to: Number_, params: Type.Optional(Params) }, { additionalProperties: false })]), {
  minItems: 1,
  maxItems: MAX_RECIPIENTS,
  description:
    "Phone numbers (+<country code>, or national with defaultCountry), or {to, params} with the values for the message's placeholders. A number that cannot exist, or one missing a placeholder's value, is reported by index, not fatal; duplicates are sent once",
});
/** MMS has no placeholders: numbers only. */
const Numbers = Type.Array(Number_, {
  minItems: 1,
  maxItems: MAX_RECIPIENTS,
  description: 'Phone numbers; +<country code> or national with defaultCountry. A number that cannot exist is reported, not fatal; duplicates are sent once',
});
const RecipientsCsv = Type.String({
  minLength: 1,
  maxLength: START_BODY_LIMIT,
  description:
    'Instead of recipients: CSV (RFC 4180) with a header row; the column `to` holds the number, every other column is a parameter named by its header (an empty cell: no value)',
});
/** How far ahead a campaign may be scheduled: it holds its worker version until it ends (docs/upgrades.md). */
export const MAX_SCHEDULE_DAYS = 7;
const StartAt = Type.String({
  format: 'date-time',
  description: `When to start sending (at most ${MAX_SCHEDULE_DAYS} days ahead); until then the campaign is SCHEDULED. Absent: at once`,
});
const TimeOfDay = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$', description: 'HH:MM (or HH:MM:SS), 24-hour' });
const QuietHours = Type.Object(
  { from: TimeOfDay, to: TimeOfDay },
  {
    additionalProperties: false,
    description:
      "No message from `from` until `to` in each recipient's local time (its country's zones; in all of them where it has several), " +
      'wrapping past midnight (21:00 to 08:00): a recipient outside its window waits for it',
  },
);
const DefaultCountry = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166 alpha-2 country for numbers given without +' });
const Rate = Type.Number({
  exclusiveMinimum: 0,
  maximum: 100_000,
  description: "Messages per second; capped at the platform's limit (the app's outbound rate, the MMS account's throughput)",
});
const Url = Type.String({ minLength: 1, maxLength: 2048 });

const Template = Type.Object(
  {
    name: Type.Optional(Type.String({ pattern: '^[a-z0-9_]{1,512}$', description: "The template's name (with language)" })),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "The template's provisioning ID (instead of name)" })),
    language: Type.Optional(Type.String({ pattern: '^[a-z]{2,3}(_[A-Z]{2,4})?$', description: 'e.g. en_US; required with name' })),
  },
  {
    additionalProperties: false,
    description:
      "An APPROVED template of the campaign's channel (CHATA or CHATB), by name and language or by ID; every recipient needs a value for each placeholder",
  },
);

export const StartConversationCampaign = Type.Object(
  {
    key: Type.Optional(Key),
    appId: Type.String({ pattern: '^[0-9A-HJKMNP-TV-Z]{26}$', description: 'The app (a ULID), called on its own region' }),
    projectId: Type.Optional(
      ProjectId(
        "The project the app lives in: a customer's subproject, to send through its bundle app (its template too is read there). The platform project when absent. With a customer's (tenant) key, one of that customer's READY subprojects (422 not_customer_project).",
      ),
    ),
    region: Type.Union([Type.Literal('us'), Type.Literal('eu'), Type.Literal('br')]),
    channel: Type.Optional(
      Type.Union(
        CONVERSATION_CHANNELS.map((c) => Type.Literal(c)),
        { default: 'SMS' },
      ),
    ),
    message: Type.Union([
      Type.Object(
        { text: Type.String({ minLength: 1, maxLength: 2048, description: "{{name}} placeholders are filled from each recipient's params" }) },
        { additionalProperties: false },
      ),
      Type.Object({ mediaUrl: Url }, { additionalProperties: false }),
      Type.Object({ template: Template }, { additionalProperties: false }),
    ]),
    recipients: Type.Optional(Recipients),
    recipientsCsv: Type.Optional(RecipientsCsv),
    defaultCountry: Type.Optional(DefaultCountry),
    rate: Type.Optional(Rate),
    startAt: Type.Optional(StartAt),
    quietHours: Type.Optional(QuietHours),
  },
  { additionalProperties: false },
);

const Slide = Type.Object(
  {
    text: Type.Optional(Type.String({ maxLength: 5_000 })),
    image: Type.Optional(Url),
    audio: Type.Optional(Url),
    video: Type.Optional(Url),
    contact: Type.Optional(Url),
    calendar: Type.Optional(Url),
    pdf: Type.Optional(Url),
    spreadsheet: Type.Optional(Url),
  },
  { additionalProperties: false },
);

export const StartMmsCampaign = Type.Object(
  {
    key: Type.Optional(Key),
    serviceId: Type.String({ minLength: 1, maxLength: 64 }),
    from: Type.Optional(Type.String({ pattern: '^[0-9]{3,15}$', description: 'A short code, toll-free or 10DLC number provisioned for MMS' })),
    subject: Type.String({ minLength: 1, maxLength: 80 }),
    slides: Type.Array(Slide, { minItems: 1, maxItems: 8 }),
    fallbackSmsText: Type.Optional(Type.String({ minLength: 1, maxLength: 1_000 })),
    disableFallbackSms: Type.Optional(Type.Boolean()),
    disableFallbackSmsLink: Type.Optional(Type.Boolean()),
    fallbackSmsLinkExpiration: Type.Optional(Type.String({ format: 'date-time' })),
    toDisplayOnly: Type.Optional(Type.Array(PhoneNumber('Shown as other group participants; never sent to'), { maxItems: 10 })),
    useSavedTemplate: Type.Optional(Type.Boolean({ description: 'savemms once, then sendsavedmms per recipient (transcoded once: the advice for video)' })),
    recipients: Numbers,
    defaultCountry: Type.Optional(DefaultCountry),
    rate: Type.Optional(Rate),
    startAt: Type.Optional(StartAt),
    quietHours: Type.Optional(QuietHours),
  },
  { additionalProperties: false },
);

/** Started, with the campaign, its counts and where its recipients are read. */
export const CampaignStarted = Type.Object({
  ...Started.properties,
  campaignId: Type.String(),
  counts: Type.Object({ total: Type.Integer(), valid: Type.Integer(), invalid: Type.Integer(), duplicates: Type.Integer() }),
  invalid: Type.Array(Type.Object({ index: Type.Integer(), reason: Type.String() }), {
    description:
      'The first 100 recipients not sent to (a number that cannot exist, a placeholder without a value), by index in recipients (CSV: data row, from 0)',
  }),
  links: Type.Object({ self: Type.String(), recipients: Type.String() }),
});

const Counts = Type.Object({
  total: Type.Integer(),
  duplicates: Type.Integer(),
  queued: Type.Integer(),
  waiting: Type.Integer({ description: "Outside the recipient's send window (quiet hours): sent when it opens" }),
  sending: Type.Integer(),
  sent: Type.Integer(),
  failed: Type.Integer(),
  invalid: Type.Integer(),
  inDoubt: Type.Integer({ description: 'Sent, answer lost: waiting for the platform to confirm (never sent again)' }),
  unconfirmed: Type.Integer({ description: 'In doubt and never confirmed by a postback' }),
  cancelled: Type.Integer(),
  suppressed: Type.Integer({ description: "On the app's suppression list (opted out) when its turn came: never sent" }),
  delivery: Type.Record(Type.String(), Type.Integer(), { description: 'Latest delivery report per recipient, by status' }),
  reasons: Type.Array(Type.Object({ reason: Type.String(), count: Type.Integer() })),
});

export const CampaignView = Type.Object({
  ...ProcessView.properties,
  counts: Counts,
  progress: Type.Number({ description: 'Share of valid recipients no longer waiting to be sent, 0..1' }),
});

export const RecipientPage = Type.Object({
  recipients: Type.Array(
    Type.Object({
      seq: Type.Integer(),
      recipient: Type.String(),
      status: Type.String(),
      attempts: Type.Integer(),
      platformId: Type.Union([Type.String(), Type.Null()]),
      reason: Type.Union([Type.String(), Type.Null()]),
      delivery: Type.Union([Type.String(), Type.Null()]),
      deliveryReason: Type.Union([Type.String(), Type.Null()]),
      updatedAt: Type.String(),
    }),
  ),
  nextPageToken: Type.String(),
});

export const RecipientStatusFilter = Type.Union(
  ['pending', 'waiting', 'sending', 'sent', 'failed', 'invalid', 'in_doubt', 'unconfirmed', 'cancelled', 'suppressed'].map((s) => Type.Literal(s)),
);
/** An operation's Outcome, with the send rate after it. */
export const Outcome = Type.Object({ ...ProcessOutcome.properties, rate: Type.Optional(Type.Number()) });
export const RateBody = Type.Object({ rate: Rate }, { additionalProperties: false });
