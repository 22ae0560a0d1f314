// GET /v1/provisioning/resources/{channel}/{resourceType}/{resourceId}/events: the webhook events received for a
// platform resource and the processes they were handed to. A webhook goes straight to the processes linked to the
// resource (store/resource-links.ts), or to the resource's inbox while none is, which forwards it to the process that
// links later; so the answer is read from both: each linked process's own record of the events it took (its status
// details: `events`, the last 100, each naming its resource) and the inbox's, if one was started. Read-only; no
// history events.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import Type, { type Static } from 'typebox';
import { workflowIds } from '../../kinds.js';
import { inboxQuery, type InboxView, type ResourceRef } from '../contract.js';
import type { ResourceLinkStore } from '../../../store/resource-links.js';
import { ApiError, errorResponses, notFound } from '../../../api/errors.js';
import type { ProcessService } from '../../../api/processes/find.js';

const CHANNELS = ['CHATA', 'CHATB', 'RCS', 'PROJECT'] as const;
const RESOURCE_TYPES = ['TEMPLATE', 'SENDER', 'ACCOUNT', 'BUNDLE'] as const;
/** How long the inbox's query may take before the answer says it could not be read. */
const INBOX_QUERY_TIMEOUT_MS = 3_000;

const HandedTo = Type.Object({
  processId: Type.String(),
  applied: Type.Boolean({ description: 'false: kept without effect (stale, or a hint that made the process read the resource); note says why' }),
  hint: Type.Optional(Type.Boolean({ description: 'an event without a sequence: the process read the resource from the platform instead' })),
  note: Type.Optional(Type.String()),
});

const ResourceEvent = Type.Object({
  eventId: Type.String(),
  trigger: Type.String(),
  sequence: Type.Optional(Type.Integer({ description: "the platform's order of the resource's events; absent for a hint" })),
  eventTime: Type.String({ description: "the platform's time (or the receive time when it sent none)" }),
  inbox: Type.Optional(
    Type.Object(
      { receivedAt: Type.String({ format: 'date-time' }) },
      { description: 'the resource inbox took it: it came while no running process was linked' },
    ),
  ),
  handedTo: Type.Array(HandedTo, { description: 'the processes that recorded it (directly, or forwarded by the inbox), and what each made of it' }),
});

const ResourceProcess = Type.Object({
  processId: Type.String(),
  kind: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  executionStatus: Type.String({ description: "Temporal's status of the process's latest run; NOT_FOUND when it no longer exists" }),
  statusSource: Type.Optional(Type.String({ description: 'workflow, or search-attributes when no worker answered in time (no events then)' })),
  linked: Type.Boolean({ description: 'linked to the resource in the store: its webhooks are signalled to it directly' }),
  attachedToInbox: Type.Boolean({ description: 'the resource inbox forwarded (or forwards) what it kept to it' }),
});

const InboxAttachment = Type.Object({
  processId: Type.String(),
  attachedAt: Type.String({ format: 'date-time' }),
  attaches: Type.Integer(),
  forwardedUpTo: Type.Integer({ description: 'receive number of the newest event forwarded to it' }),
  linked: Type.Optional(Type.Boolean()),
  detachedAt: Type.Optional(Type.String({ format: 'date-time' })),
});

const ResourceEvents = Type.Object({
  resource: Type.Object({ channel: Type.String(), resourceType: Type.String(), resourceId: Type.String() }),
  events: Type.Array(ResourceEvent, { description: 'each event once, in the platform order (time, then sequence)' }),
  processes: Type.Array(ResourceProcess, { description: 'the processes linked to the resource, and those its inbox forwarded to' }),
  inbox: Type.Optional(
    Type.Object(
      {
        workflowId: Type.String(),
        received: Type.Integer({ description: 'events it took, repeats not counted' }),
        duplicates: Type.Integer(),
        attached: Type.Array(InboxAttachment),
      },
      { description: 'present when a webhook came while no running process was linked (the inbox may have ended since)' },
    ),
  ),
});
type ResourceEventsView = Static<typeof ResourceEvents>;
type EventView = ResourceEventsView['events'][number];
type ProcessEntry = ResourceEventsView['processes'][number];

/** What a provisioning process keeps of an event in `details.events` (processes/provisioning/workflow/follow.ts). */
interface EventNote {
  eventId: string;
  trigger: string;
  resourceType?: string;
  resourceId?: string;
  sequence?: number;
  eventTime: string;
  applied: boolean;
  hint?: boolean;
  note?: string;
}

export interface ResourceEventsOptions {
  client: Client;
  processes: ProcessService;
  /** Without the store nothing is linked: the inbox is all there is. */
  links?: ResourceLinkStore | undefined;
}

export const resourceEventRoutes: FastifyPluginAsyncTypebox<ResourceEventsOptions> = async (app, opts) => {
  app.get(
    '/v1/provisioning/resources/:channel/:resourceType/:resourceId/events',
    {
      schema: {
        tags: ['provisioning'],
        summary: 'The webhook events received for a platform resource, and the processes they were handed to',
        params: Type.Object({
          channel: Type.Enum(CHANNELS),
          resourceType: Type.Enum(RESOURCE_TYPES),
          resourceId: Type.String({ minLength: 1, maxLength: 512 }),
        }),
        response: { 200: ResourceEvents, ...errorResponses(400, 401, 404, 503) },
      },
    },
    async (req) => resourceEvents(opts, req.params),
  );
};

async function resourceEvents({ client, processes, links }: ResourceEventsOptions, resource: ResourceRef): Promise<ResourceEventsView> {
  const inboxId = workflowIds.resourceInbox(resource.channel, resource.resourceType, resource.resourceId);
  const [linked, inbox] = await Promise.all([links ? readLinks(links, inboxId) : [], readInbox(client, inboxId)]);
  const linkedIds = linked.map((l) => l.processId);
  const attachedIds = inbox?.attached.map((a) => a.processId) ?? [];
  const processIds = [...new Set([...linkedIds, ...attachedIds])];
  if (!processIds.length && !inbox) throw notFound(`events for ${resource.channel} ${resource.resourceType} ${resource.resourceId}`);

  const events = new Map<string, EventView>();
  const entry = (e: Pick<EventView, 'eventId' | 'trigger' | 'sequence' | 'eventTime'>): EventView => {
    let v = events.get(e.eventId);
    if (!v) {
      v = { eventId: e.eventId, trigger: e.trigger, ...(e.sequence !== undefined ? { sequence: e.sequence } : {}), eventTime: e.eventTime, handedTo: [] };
      events.set(e.eventId, v);
    }
    return v;
  };
  for (const e of inbox?.events ?? []) entry(e).inbox = { receivedAt: e.receivedAt };

  const entries = await Promise.all(
    processIds.map(async (processId): Promise<ProcessEntry> => {
      const flags = { linked: linkedIds.includes(processId), attachedToInbox: attachedIds.includes(processId) };
      let view;
      try {
        view = await processes.get(processId);
      } catch (err) {
        // A link or an attachment outlives its process's history (retention): nothing to read there.
        if (err instanceof ApiError && err.statusCode === 404) return { processId, executionStatus: 'NOT_FOUND', ...flags };
        throw err;
      }
      for (const n of notesOf(view.details)) {
        if (n.resourceId !== resource.resourceId || (n.resourceType !== undefined && n.resourceType !== resource.resourceType)) continue;
        entry(n).handedTo.push({ processId, applied: n.applied, ...(n.hint ? { hint: true } : {}), ...(n.note ? { note: n.note } : {}) });
      }
      return { processId, kind: view.kind, state: view.state, executionStatus: view.execution.status, statusSource: view.statusSource, ...flags };
    }),
  );

  return {
    resource: { channel: resource.channel, resourceType: resource.resourceType, resourceId: resource.resourceId },
    events: [...events.values()].sort(platformOrder),
    processes: entries,
    ...(inbox
      ? { inbox: { workflowId: inboxId, received: inbox.received, duplicates: inbox.duplicates, attached: inbox.attached.map((a) => ({ ...a })) } }
      : {}),
  };
}

/** The inbox's own account, or undefined when none was ever started (or its history is gone). */
async function readInbox(client: Client, inboxId: string): Promise<InboxView | undefined> {
  try {
    return await client.withDeadline(Date.now() + INBOX_QUERY_TIMEOUT_MS, () => client.workflow.getHandle(inboxId).query(inboxQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw new ApiError(503, 'unavailable', `the resource's inbox (${inboxId}) could not be read; retry later`, undefined, 5_000);
  }
}

async function readLinks(links: ResourceLinkStore, inboxId: string) {
  try {
    return await links.owners(inboxId);
  } catch {
    throw new ApiError(503, 'unavailable', "the resource's links could not be read from the store; retry later", undefined, 5_000);
  }
}

/** The process's `details.events`, the well-formed ones (a process of another kind keeps none). */
function notesOf(details: unknown): EventNote[] {
  const events = (details as { events?: unknown } | undefined)?.events;
  if (!Array.isArray(events)) return [];
  return events.filter(
    (e): e is EventNote =>
      typeof e === 'object' && e !== null && typeof (e as EventNote).eventId === 'string' && typeof (e as EventNote).resourceId === 'string',
  );
}

const timeOf = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : t;
};

function platformOrder(a: EventView, b: EventView): number {
  return timeOf(a.eventTime) - timeOf(b.eventTime) || (a.sequence ?? Infinity) - (b.sequence ?? Infinity) || a.eventId.localeCompare(b.eventId);
}
