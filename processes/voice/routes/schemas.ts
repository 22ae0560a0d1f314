// The voice routes' request and answer shapes (the OpenAPI document is built from these). Every string is
// bounded; the largest body the document allows (a CallScript of 20 menus of 12 options, all \u-escaped) fits
// SCRIPT_BODY_LIMIT.
import Type, { type TOptional } from 'typebox';
import type { SvamlActionName, SvamlInstructionName } from '../../../common/wire/voice-svaml.js';
import { CAMPAIGN_KEY_PATTERN } from '../../../contracts/ids.js';
import { CALL_OUTCOMES, RULE_KEY_MAX_LENGTH, RULE_KEY_PATTERN, VOICE_REGIONS } from '../contract.js';

/** The body limit of the routes that take a CallScript (the worst case is about 1.8 MB of JSON). */
export const SCRIPT_BODY_LIMIT = 4 * 1024 * 1024;

const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';
const PhoneNumber = (description = 'E.164, e.g. +46700000001') => Type.String({ pattern: E164_PATTERN, maxLength: 16, description });
const Locale = Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 35, description: 'BCP 47, e.g. en-US (default en-US)' });
const Region = Type.Enum([...VOICE_REGIONS], { description: 'The calling address (region); a conference lives in one region', default: 'global' });
/** Calls: no default, since without a region the address an incoming call gave is used. */
export const CallRegionQuery = Type.Object(
  {
    region: Type.Optional(Type.Enum([...VOICE_REGIONS], { description: 'The calling address to use; default: the one an incoming call gave, else global' })),
  },
  { additionalProperties: false },
);
export const RegionQuery = Type.Object({ region: Type.Optional(Region) }, { additionalProperties: false });
export const ConferenceId = Type.String({
  pattern: '^[A-Za-z0-9._-]{1,64}$',
  maxLength: 64,
  description: 'The conference: created by the first call that joins it',
});
/**
 * The platform's call IDs are 32 hex digits or a UUID (36); 64 leaves room. A longer one was passed on and came
 * back as the sandbox router's 414 (path parameters up to 100 characters), answered as a 422.
 */
export const CallId = Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', maxLength: 64, description: "The platform's call ID" });
const Moh = Type.Enum(['ring', 'music1', 'music2', 'music3'], { description: 'What a participant hears while alone or on hold' });
const Text = (description: string) => Type.String({ minLength: 1, maxLength: 1000, description });
const MenuId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', maxLength: 32 });
const MENU_KEYS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'] as const;

// ---------------------------------------------------------------------------------------------
// CallScript
// ---------------------------------------------------------------------------------------------

const CallStep = Type.Union(
  [
    Type.Object({ type: Type.Literal('play'), text: Text('Spoken, then the call ends'), locale: Type.Optional(Locale) }, { additionalProperties: false }),
    Type.Object(
      {
        type: Type.Literal('connect'),
        number: PhoneNumber('Where the call is connected (not in answer to an answered callout)'),
        cli: Type.Optional(PhoneNumber('The caller ID shown')),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal('conference'),
        conferenceId: ConferenceId,
        record: Type.Optional(Type.Boolean()),
        moh: Type.Optional(Moh),
        greeting: Type.Optional(Type.String({ maxLength: 1000, description: 'Said before joining' })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('menu'), menu: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', maxLength: 32, description: "A key of the script's menus" }) },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal('hangup'), text: Type.Optional(Type.String({ maxLength: 1000, description: 'Said before hanging up' })) },
      { additionalProperties: false },
    ),
  ],
  { description: 'One step of a call, by type: play, connect, conference, menu, hangup' },
);

const Menu = Type.Object(
  {
    prompt: Text('Said while waiting for a key'),
    // The keys one by one (not a pattern): the OpenAPI document keeps them, and so says which keys there are.
    options: Type.Object(
      Object.fromEntries(MENU_KEYS.map((k) => [k, Type.Optional(CallStep)])) as Record<(typeof MENU_KEYS)[number], TOptional<typeof CallStep>>,
      {
        additionalProperties: false,
        minProperties: 1,
        description: 'Key (0-9, *, #) -> the step that follows',
      },
    ),
    locale: Type.Optional(Locale),
    repeats: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'How often the prompt repeats before the menu gives up (default 2)' })),
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 60, description: 'How long to wait for a key per prompt (default 5)' })),
    invalidText: Type.Optional(Type.String({ maxLength: 1000, description: 'Said when a key leads nowhere; the menu then runs again' })),
  },
  { additionalProperties: false },
);

const CallScript = Type.Object(
  {
    start: CallStep,
    // propertyNames, not a pattern key: the OpenAPI document turns patternProperties into additionalProperties.
    menus: Type.Optional(Type.Record(Type.String(), Menu, { propertyNames: MenuId, maxProperties: 20, description: 'Menus by ID (1-32 of A-Z a-z 0-9 _ -)' })),
  },
  { additionalProperties: false, description: 'What a connected call does: its first step, and the menus steps can run' },
);

// ---------------------------------------------------------------------------------------------
// Callouts
// ---------------------------------------------------------------------------------------------

const CalloutCommon = {
  key: Type.Optional(
    Type.String({
      pattern: CAMPAIGN_KEY_PATTERN.source,
      maxLength: 64,
      description: 'Your key for this callout: the same key always answers the same callout',
    }),
  ),
  cli: Type.Optional(PhoneNumber('The caller ID shown to the callee')),
  locale: Type.Optional(Locale),
  region: Type.Optional(Region),
  amd: Type.Optional(
    Type.Object(
      {
        enabled: Type.Boolean(),
        onMachine: Type.Optional(
          Type.Enum(['hangup', 'continue'], { description: 'When a machine answers: hang up (outcome machine, default) or go on as with a person' }),
        ),
      },
      { additionalProperties: false, description: 'Answering machine detection (tts and conference callouts)' },
    ),
  ),
  retry: Type.Optional(
    Type.Object(
      {
        delaysSeconds: Type.Array(Type.Integer({ minimum: 0, maximum: 86_400 }), {
          maxItems: 10,
          description: 'The wait before each further attempt; as many retries as entries',
        }),
        on: Type.Optional(
          Type.Array(Type.Enum([...CALL_OUTCOMES]), {
            minItems: 1,
            maxItems: 5,
            uniqueItems: true,
            description: 'Which outcomes are retried (default busy and noanswer)',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  maxDurationSeconds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 14_400, description: 'Longest a connected call may last (conference and custom callouts)' }),
  ),
};

export const StartTtsCallout = Type.Object(
  {
    destination: PhoneNumber('Who is called'),
    text: Text('Spoken when the callee answers'),
    ...CalloutCommon,
  },
  { additionalProperties: false },
);

export const StartConferenceCallout = Type.Object(
  {
    conferenceId: ConferenceId,
    destinations: Type.Array(PhoneNumber(), { minItems: 1, maxItems: 10, uniqueItems: true, description: 'One call per number, each joining the conference' }),
    greeting: Type.Optional(Type.String({ maxLength: 1000, description: 'Said to each callee before joining' })),
    moh: Type.Optional(Moh),
    ...CalloutCommon,
  },
  { additionalProperties: false },
);

export const StartCustomCallout = Type.Object(
  {
    destination: PhoneNumber('Who is called'),
    script: CallScript,
    ...CalloutCommon,
  },
  { additionalProperties: false },
);

export const Stopped = Type.Object({
  stopped: Type.Boolean({ description: 'false: the callout had ended or was stopped already' }),
  hungUp: Type.Integer({ description: 'Calls under way that were hung up' }),
});

// ---------------------------------------------------------------------------------------------
// Conferences and calls
// ---------------------------------------------------------------------------------------------

export const ConferenceView = Type.Object({
  conferenceId: Type.String(),
  region: Type.String(),
  participants: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The call ID' }),
      cli: Type.Optional(Type.String()),
      duration: Type.Optional(Type.Number({ description: 'Seconds in the conference' })),
      muted: Type.Optional(Type.Boolean()),
      onhold: Type.Optional(Type.Boolean()),
    }),
  ),
});

export const ParticipantCommandBody = Type.Object(
  {
    command: Type.Enum(['mute', 'unmute', 'onhold', 'resume']),
    moh: Type.Optional(Moh),
  },
  { additionalProperties: false },
);

export const CallInfoView = Type.Object(
  {
    callId: Type.Optional(Type.String()),
    from: Type.Optional(Type.Unknown()),
    to: Type.Optional(Type.Unknown()),
    domain: Type.Optional(Type.String()),
    status: Type.Optional(Type.String({ description: 'ONGOING or FINAL' })),
    result: Type.Optional(Type.String({ description: 'N/A, ANSWERED, BUSY, NOANSWER, FAILED' })),
    reason: Type.Optional(Type.String()),
    duration: Type.Optional(Type.Number()),
    timestamp: Type.Optional(Type.String()),
    custom: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: "The platform's call information, as it gave it" },
);

/** The SVAML names, checked complete against common/wire/voice-svaml.ts at compile time. */
const SVAML_ACTIONS = [
  'hangup',
  'continue',
  'connectPstn',
  'connectMxp',
  'connectConf',
  'connectSip',
  'runMenu',
  'park',
] as const satisfies readonly SvamlActionName[];
const SVAML_INSTRUCTIONS = [
  'answer',
  'playFiles',
  'say',
  'sendDtmf',
  'setCookie',
  'startRecording',
  'stopRecording',
] as const satisfies readonly SvamlInstructionName[];
type Missing = Exclude<SvamlActionName, (typeof SVAML_ACTIONS)[number]> | Exclude<SvamlInstructionName, (typeof SVAML_INSTRUCTIONS)[number]>;
const complete: [Missing] extends [never] ? true : never = true;
void complete;

/** The actions that manage a call already connected (docs/voice-wire.md "Calls and conferences"). */
export const MANAGE_CALL_ACTIONS: readonly SvamlActionName[] = ['hangup', 'continue', 'connectPstn', 'connectConf', 'connectSip'];

const Short = (max: number, description?: string) => Type.String({ maxLength: max, ...(description ? { description } : {}) });

const SvamlInstruction = Type.Object(
  {
    name: Type.Enum([...SVAML_INSTRUCTIONS]),
    text: Type.Optional(Short(1000, 'say: what is said')),
    locale: Type.Optional(Locale),
    ids: Type.Optional(Type.Array(Short(256), { maxItems: 10, description: 'playFiles: prompt IDs, #tts[...] or #href[...]' })),
    key: Type.Optional(Short(64, 'setCookie')),
    value: Type.Optional(Short(1024, 'setCookie: the value; sendDtmf: the keys')),
    options: Type.Optional(
      Type.Object(
        {
          destinationUrl: Type.Optional(Short(2048)),
          credentials: Type.Optional(Short(512)),
          format: Type.Optional(Type.Enum(['mp3', 'wav'])),
          notificationEvents: Type.Optional(Type.Boolean()),
          transcriptionOptions: Type.Optional(Type.Object({ enabled: Type.Boolean(), locale: Type.Optional(Locale) }, { additionalProperties: false })),
        },
        { additionalProperties: false, description: 'startRecording' },
      ),
    ),
  },
  { additionalProperties: false },
);

const SvamlAction = Type.Object(
  {
    name: Type.Enum([...SVAML_ACTIONS], { description: `Managing a call: ${MANAGE_CALL_ACTIONS.join(', ')}` }),
    number: Type.Optional(PhoneNumber('connectPstn: where to')),
    cli: Type.Optional(PhoneNumber('connectPstn, connectSip: the caller ID shown')),
    locale: Type.Optional(Locale),
    maxDuration: Type.Optional(Type.Integer({ minimum: 0, maximum: 14_400, description: 'Seconds' })),
    dialTimeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600, description: 'Seconds' })),
    suppressCallbacks: Type.Optional(Type.Boolean()),
    dtmf: Type.Optional(Type.String({ pattern: '^[0-9#w]*$', maxLength: 64 })),
    indications: Type.Optional(Short(16, 'The country of the ringing tone, e.g. se')),
    amd: Type.Optional(Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false })),
    conferenceId: Type.Optional(ConferenceId),
    record: Type.Optional(Type.Boolean()),
    moh: Type.Optional(Moh),
    conferenceDtmfOptions: Type.Optional(
      Type.Object(
        {
          mode: Type.Enum(['ignore', 'forward', 'detect']),
          maxDigits: Type.Optional(Type.Integer({ minimum: 1, maximum: 32 })),
          timeoutMills: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
        },
        { additionalProperties: false },
      ),
    ),
    destination: Type.Optional(
      Type.Object(
        { type: Type.Enum(['number', 'username', 'sip']), endpoint: Short(256) },
        { additionalProperties: false, description: 'connectSip: the SIP address' },
      ),
    ),
    transport: Type.Optional(Type.Enum(['udp', 'tcp', 'tls'])),
    callHeaders: Type.Optional(Type.Array(Type.Object({ key: Short(64), value: Short(1024) }, { additionalProperties: false }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

export const CallUpdateBody = Type.Object(
  {
    instructions: Type.Optional(Type.Array(SvamlInstruction, { maxItems: 20 })),
    action: SvamlAction,
  },
  { additionalProperties: false, description: 'SVAML: instructions, then one action' },
);

/** As SvamlInstruction, but any name: what a leg takes (playFiles, say) is a rule checked after the schema (422). */
const LegInstruction = Type.Object(
  {
    ...SvamlInstruction.properties,
    name: Type.String({ pattern: '^[A-Za-z]{1,32}$', maxLength: 32, description: 'playFiles or say; any other instruction is refused (422)' }),
  },
  { additionalProperties: false },
);

export const LegUpdateBody = Type.Object(
  {
    instructions: Type.Array(LegInstruction, { minItems: 1, maxItems: 20, description: 'Only playFiles and say manage a call leg' }),
  },
  { additionalProperties: false },
);

export const CallLegParam = Type.Enum(['caller', 'callee', 'both']);

// ---------------------------------------------------------------------------------------------
// Configuration and incoming-call rules
// ---------------------------------------------------------------------------------------------

const Capability = Type.Enum(['voice', 'sms']);

export const NumbersView = Type.Object({
  numbers: Type.Array(
    Type.Object({
      number: Type.String(),
      capability: Type.String({ description: 'voice or sms' }),
      applicationKey: Type.Optional(Type.String({ description: 'The application the number is assigned to' })),
    }),
  ),
});

export const AssignBody = Type.Object(
  {
    numbers: Type.Array(PhoneNumber(), { minItems: 1, maxItems: 50, uniqueItems: true }),
    capability: Type.Optional(Capability),
  },
  { additionalProperties: false },
);

export const UnassignBody = Type.Object(
  {
    number: PhoneNumber(),
    capability: Type.Optional(Capability),
  },
  { additionalProperties: false },
);

const HttpUrl = (description: string) => Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

export const CallbackUrlsBody = Type.Object(
  {
    primary: HttpUrl('Where the platform sends the callbacks of the application'),
    fallback: Type.Optional(HttpUrl('Used when the primary does not answer')),
  },
  { additionalProperties: false },
);

export const CallbackUrlsView = Type.Object({
  primary: Type.Optional(Type.String()),
  fallback: Type.Optional(Type.String()),
});

export const RuleNumber = Type.String({
  pattern: RULE_KEY_PATTERN,
  maxLength: RULE_KEY_MAX_LENGTH,
  description:
    "The rule's key: a number in E.164 (calls to it); user:<id> (calls from that in-app user, to anyone); to-user:<id> " +
    '(app-to-app calls to that in-app user); or default (every call no other rule matches). An in-app call picks ' +
    "its caller's rule first, then its callee's (user or number), then default. <id>: 1 to 64 of A-Z a-z 0-9 . _ @ + -",
});

export const IncomingRuleView = Type.Object({
  number: Type.String({ description: "The rule's key (a number, user:<id>, to-user:<id> or default)" }),
  script: CallScript,
  updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

export const RuleBody = Type.Object({ script: CallScript }, { additionalProperties: false });

/** 204: no body. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'Done: no content' });
