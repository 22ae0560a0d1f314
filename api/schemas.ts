// Schemas shared by several routes.
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import Type from 'typebox';
import { badRequest } from './errors.js';

/**
 * The longest process ID relayflow builds (contracts/ids.ts): a template's, `chatb-template:<projectId>:<name>:<language>`,
 * is 15 + the project ID + 1 + the name (at most 512) + 1 + the language (at most 8, `xxx_XXXX`): 637 with a project
 * ID of 100 characters (the platform's are 36-character UUIDs). Temporal's own limit is 1000. Every ID in a path
 * states its limit as maxLength, so a longer one is a 400 naming the field and the rule before anything is asked.
 */
export const PROCESS_ID_MAX_LENGTH = 640;

/** A platform project a start acts in: a customer's subproject (api/processes/customer-project.ts). */
export const ProjectId = (description: string) => Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$', description });

export const ProcessId = Type.String({
  minLength: 1,
  maxLength: PROCESS_ID_MAX_LENGTH,
  description: 'The process ID (its Temporal workflow ID), URL-encoded in paths',
});

/**
 * The answer to every start by key: 202 when this request started the process, 200 with `created: false`
 * when the key already names one (that process is the one answered). Starts that say more extend it
 * (CampaignStarted); links.self is the process's own read route.
 */
export const Started = Type.Object({
  processId: Type.String(),
  kind: Type.String(),
  created: Type.Boolean({ description: 'false: this key already names a process, which is the one answered' }),
  links: Type.Object({ self: Type.String() }),
});

/** The two answers of a start route (see Started), for its `response`. */
export const STARTED_RESPONSES = { 202: Started, 200: Started };

/** What an operation on a running process answers: whether it was accepted, the state after, and why not. */
export const Outcome = Type.Object({ accepted: Type.Boolean(), state: Type.String(), reason: Type.Optional(Type.String()) });

/** The optional body of a stop, cancel, pause or delete: why, recorded in the process's history. */
export const ReasonBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 512 })) }, { additionalProperties: false });

const StateChange = Type.Object({
  state: Type.String(),
  at: Type.String({ format: 'date-time' }),
  reason: Type.Optional(Type.String()),
});

export const ProcessView = Type.Object({
  processId: Type.String(),
  tenant: Type.Optional(Type.String({ description: 'The customer it belongs to: started by a tenant API key, or a child of such a process' })),
  statusSource: Type.Union([Type.Literal('workflow'), Type.Literal('search-attributes')], {
    description: "'search-attributes' when no worker answered in time: state only, no history",
  }),
  kind: Type.String(),
  state: Type.String({ description: 'Where the process is now' }),
  since: Type.String({ format: 'date-time' }),
  history: Type.Array(StateChange, { description: 'Every state the process passed through, with why' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  execution: Type.Object({
    status: Type.String({ description: 'Temporal execution status: RUNNING, COMPLETED, FAILED, ...' }),
    runId: Type.String(),
    startedAt: Type.String({ format: 'date-time' }),
    closedAt: Type.Optional(Type.String({ format: 'date-time' })),
    historyLength: Type.Number(),
  }),
  pendingActivities: Type.Array(
    Type.Object({
      activity: Type.String(),
      attempt: Type.Number(),
      state: Type.String(),
      lastFailure: Type.Optional(Type.String()),
      nextAttemptAt: Type.Optional(Type.String()),
    }),
    { description: 'Platform calls under way or being retried, and why the last attempt failed' },
  ),
  failure: Type.Optional(Type.String()),
});

const ProcessSummary = Type.Object({
  processId: Type.String(),
  runId: Type.String({ description: 'The run: a business key followed again after a final state lists one entry per run' }),
  kind: Type.String(),
  state: Type.String(),
  executionStatus: Type.String(),
  startedAt: Type.String(),
  closedAt: Type.Optional(Type.String()),
  businessKey: Type.String({ description: "The caller's key: the process ID after `<kind>:`" }),
  lastChangeAt: Type.String({ format: 'date-time', description: 'When the state last changed (the start before any change, the close when later)' }),
  reason: Type.Optional(Type.String({ description: 'Why it last changed, phone numbers masked; absent when the change gave no reason' })),
  attention: Type.Optional(
    Type.Union([Type.Literal('waiting-on-person'), Type.Literal('failed')], {
      description:
        'waiting-on-person: nothing moves until someone acts (WAITING_FOR_CALLER, PENDING_ATTACHMENTS, DRAFT_SAVED, a paused campaign...); failed: it ended unsuccessfully',
    }),
  ),
  tenant: Type.Optional(Type.String({ description: 'The customer it belongs to: started by a tenant API key, or a child of such a process' })),
  source: Type.Union([Type.Literal('temporal'), Type.Literal('archive')], {
    description: "temporal: from Temporal's visibility; archive: from relayflow's audit archive, the history deleted by Temporal's retention",
  }),
});

export const ProcessList = Type.Object({
  processes: Type.Array(ProcessSummary),
  nextPageToken: Type.String({ description: 'Pass as pageToken for the next page; empty on the last page' }),
  windowFull: Type.Optional(
    Type.Boolean({ description: 'sort=lastChange only: true when more processes matched than the 1,000 it orders (narrow the filters)' }),
  ),
});

const Count = <K extends string>(key: K) =>
  Type.Object({ [key]: Type.String(), count: Type.Integer({ minimum: 1 }) } as Record<K, Type.TString> & { count: Type.TInteger });

export const ProcessCounts = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  waitingOnPerson: Type.Integer({ minimum: 0, description: "Processes whose attention is 'waiting-on-person'" }),
  failed: Type.Integer({ minimum: 0, description: "Processes whose attention is 'failed'" }),
  byKind: Type.Array(Count('kind'), { description: 'Kinds with at least one process' }),
  byState: Type.Array(Count('state'), { description: 'States with at least one process' }),
  otherStates: Type.Integer({ minimum: 0, description: 'Processes in a state relayflow does not name (a new platform state)' }),
});

export const StateFilter = Type.String({ pattern: '^[A-Z][A-Z_]{0,63}$', description: 'A state name, e.g. READY' });

export const Paging = {
  // Optional in the document (validation fills in the default): a required pageSize would make every
  // list without one a request the document calls invalid.
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
  // format 'page-token' (api/plugins/validation.ts) tells clients and fuzzers that a token cannot be made up.
  pageToken: Type.Optional(
    Type.String({ format: 'page-token', maxLength: 4096, description: 'The nextPageToken of the previous page, as given; absent or empty for the first page' }),
  ),
};

/**
 * A phone number in international format that exists (format e164, checked with libphonenumber by the
 * validator, so the document states the rule); spaces and dashes are allowed, `e164()` normalises.
 */
export const PhoneNumber = (description = 'Phone number in international format, e.g. +46700000001') =>
  Type.String({ format: 'e164', minLength: 3, maxLength: 32, description });

/** The number of a field checked as PhoneNumber, in E.164 (a 400 naming the field should it not parse). */
export function e164(value: string, field: string): string {
  const parsed = value.startsWith('+') ? parsePhoneNumberFromString(value) : undefined;
  if (!parsed?.isValid()) throw badRequest(field, 'e164', 'must be a valid phone number in international format (+ and country code)');
  return parsed.number;
}
