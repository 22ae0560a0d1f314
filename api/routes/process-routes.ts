// The routes every process family has, written once: each family declares them on the router of one of its
// collections (its descriptor, processes/kinds.ts), which takes the path, tag, kinds and workflow types from the registry.
// - start: POST at the collection (or at each style's segment), starting a process by its business key.
// - list: GET at each style's segment (or the collection), by kind, optionally by state, paged.
// - read: GET `${path}/:processId` (and reads below it), 404 for IDs of other kinds without asking Temporal.
// - action: POST `${path}/:processId/<action>`, an update carrying an operation ID, its outcome mapped to HTTP.
// Every operation gets a derived operationId, and every start's success answers link to the collection's reads
// and actions and to the generic process routes, so a client (or a fuzzer) can chain start -> read -> act.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import Type, { type Static, type TObject, type TSchema } from 'typebox';
import { COLLECTIONS, type Collection, type ProcessKind } from '../../processes/kinds.js';
import { errorResponses, invalid } from '../errors.js';
import { pascal } from '../plugins/docs.js';
import type { ProcessService } from '../processes/find.js';
import { startProcess, type BuiltProcess, type ReusePolicy, type Started } from '../processes/start.js';
import { handleOf, IdempotencyKey, operationId, runUpdate } from '../processes/update.js';
import { Outcome, Paging, ProcessId, ProcessList, ProcessView, ReasonBody, STARTED_RESPONSES, StateFilter } from '../schemas.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];
type Responses = Record<number, unknown>;
type Link = { operationId: string; parameters: Record<string, string> };
const ProcessParams = Type.Object({ processId: ProcessId });
type ProcessParams = typeof ProcessParams;

/** The operationIds of the generic process routes (api/routes/processes.ts, api/routes/audit), linked from every start. */
export const PROCESS_OPERATIONS = { read: 'readProcess', timeline: 'readProcessTimeline' } as const;

const camel = (words: string) => pascal(words).replace(/^./, (c) => c.toLowerCase());

/** The registry's collection at `path`. */
function collectionAt(path: string): Collection {
  const found = COLLECTIONS.find((c) => c.path === path);
  if (!found) throw new Error(`no collection at ${path} in processes/kinds.ts`);
  return found;
}

/** What a route reads of its request (the type provider's request, narrowed to the spec's schemas). */
interface ProcessRequest<B = unknown, P = { processId: string }, Q = unknown> {
  body: B;
  params: P;
  query: Q;
  headers: { 'idempotency-key'?: string };
  log: FastifyBaseLogger;
}

/**
 * The request as the route's schemas say it is (Fastify validated it against them). The router's one narrowing:
 * it is generic over its schemas, and TypeScript cannot resolve the type provider's conditional types for a generic
 * schema, so a route's request reaches here with its body, params and query unresolved.
 */
const asProcessRequest = <B, P = { processId: string }, Q = unknown>(req: {
  body: unknown;
  params: unknown;
  query: unknown;
  headers: unknown;
  log: FastifyBaseLogger;
}) => req as ProcessRequest<B, P, Q>;

export interface RouterDeps {
  client: Client;
  processes: ProcessService;
  /** Where starts by key put their processes (a family whose starts are all its own needs none). */
  taskQueue?: string;
}

interface StartCommon<B extends TSchema> {
  /** The style it starts, one of the collection's styles' segments (with a sub-path: `chata/embedded`); none: the collection itself. */
  segment?: string;
  summary: string;
  description?: string;
  body: B;
  bodyLimit?: number;
  /** Idempotency-Key header (starts by key need none: the key is in the body). */
  idempotencyKey?: boolean;
  /** The statuses the route answers besides its successes. */
  errors: readonly number[];
}

/** A start by key: the route builds the process (422 naming each field its rules refuse) and the router starts it. */
interface StartByKey<B extends TSchema, I> extends StartCommon<B> {
  build: (req: ProcessRequest<Static<B>>) => BuiltProcess<I> | Promise<BuiltProcess<I>>;
  reuse: ReusePolicy;
  initialState?: string;
  /** Runs when the key already named a process (e.g. to compare what it was started with). */
  existing?: (built: BuiltProcess<I>) => Promise<void>;
}

/** A start that answers in its own words (its success responses must carry `processId`). */
interface StartOwn<B extends TSchema> extends StartCommon<B> {
  responses: Responses;
  start: (req: ProcessRequest<Static<B>>) => Promise<{ status: number; body: unknown }>;
}

interface ListSpec {
  /** Per style (segment and kind), or for the whole collection (no segment). */
  summary: (segment: string | undefined, kind: ProcessKind | undefined) => string;
}

interface ReadSpec<Q extends TSchema> {
  /** A read below the process (`recipients`); none: the process itself. */
  below?: string;
  summary: string;
  querystring?: Q;
  /** Default: the ProcessView. */
  response?: TSchema;
  errors?: readonly number[];
  get?: (req: ProcessRequest<unknown, { processId: string }, Static<Q>>) => Promise<unknown>;
}

interface ActionCommon<B extends TSchema, P extends TObject> {
  /** The path below `${path}/:processId/`, e.g. `relaunch`, `steps/:step/retry`. */
  action: string;
  /** Default: the action's words and the collection's noun (`relaunchSender`). */
  operationId?: string;
  summary: string;
  /** Default: just the processId. Actions with more path parameters are not linked from the starts. */
  params?: P;
  body?: B;
  bodyLimit?: number;
  /** The body may be left out (stop, cancel: an optional reason). */
  optionalBody?: boolean;
  /** Default: true, an Idempotency-Key header whose value is the update's operation ID. */
  idempotencyKey?: boolean;
  /** Default: the collection's kinds. */
  kinds?: readonly ProcessKind[];
  /** Words for the process in errors; default the router's. */
  what?: string;
  /** Default: { 200: Outcome }. */
  responses?: Responses;
  errors: readonly number[];
}

/** An update carrying an operation ID: `request` builds (and checks) its argument, `answer` maps its outcome. */
interface UpdateAction<B extends TSchema, P extends TObject, A, R> extends ActionCommon<B, P> {
  update: UpdateDefinition<R, [A]>;
  request: (req: ProcessRequest<Static<B>, Static<P>>, operationId: string) => A | Promise<A>;
  answer: (outcome: R, request: A) => unknown;
  waitMs?: number;
}

/** An action that does more than one update (a bundle's delete may start a delete-only run). */
interface OwnAction<B extends TSchema, P extends TObject> extends ActionCommon<B, P> {
  act: (req: ProcessRequest<Static<B>, Static<P>>, reply: FastifyReply, handle: WorkflowHandle) => Promise<unknown>;
}

export interface ProcessRouter {
  /** The process's own route, the Started answer's links.self. */
  self: (processId: string) => string;
  start<B extends TSchema, I>(spec: StartByKey<B, I> | StartOwn<B>): void;
  /** Starts a built process by its key (422 when it has errors): what a start by key does, for starts in their own words. */
  startBuilt<I>(built: BuiltProcess<I>, how: { reuse: ReusePolicy; initialState?: string }): Promise<{ status: 200 | 202; body: Started }>;
  /** GET at each style's segment (or the collection), and at the collection when it lists every style. */
  list(spec: ListSpec): void;
  read<Q extends TSchema = TObject>(spec: ReadSpec<Q>): void;
  action<B extends TSchema, A, R, P extends TObject = ProcessParams>(spec: UpdateAction<B, P, A, R> | OwnAction<B, P>): void;
}

/**
 * The router of the collection at `path`. The starts' links are filled as reads and actions are declared: the
 * document is built once every route is registered.
 */
export function processRouter(app: App, { client, processes, taskQueue }: RouterDeps, path: string, what: string): ProcessRouter {
  const collection = collectionAt(path);
  const { tag, kinds } = collection;
  const noun = pascal(path.split('/').at(-1)!.replace(/s$/, ''));
  const self = (processId: string) => `${path}/${encodeURIComponent(processId)}`;
  const byProcess: Link['parameters'] = { processId: '$response.body#/processId' };
  const links: Record<string, Link> = {};
  const link = (id: string) => (links[id] = { operationId: id, parameters: byProcess });
  link(PROCESS_OPERATIONS.read);
  link(PROCESS_OPERATIONS.timeline);

  async function startBuilt<I>(built: BuiltProcess<I>, how: { reuse: ReusePolicy; initialState?: string }) {
    if (built.errors.length) throw invalid(built.errors);
    if (!taskQueue) throw new Error(`${path}: a start by key needs the task queue`);
    return startProcess(client, {
      kind: built.kind,
      processId: built.processId,
      taskQueue,
      args: [built.input],
      reuse: how.reuse,
      ...(how.initialState ? { initialState: how.initialState } : {}),
      self,
    });
  }

  return {
    self,
    startBuilt,

    start<B extends TSchema, I>(spec: StartByKey<B, I> | StartOwn<B>) {
      const responses = 'responses' in spec ? spec.responses : STARTED_RESPONSES;
      const successes = Object.keys(responses).filter((s) => s.startsWith('2'));
      app.post(
        spec.segment ? `${path}/${spec.segment}` : path,
        {
          ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
          schema: {
            tags: [tag],
            operationId: `start${pascal(spec.segment ?? '')}${noun}`,
            summary: spec.summary,
            ...(spec.description ? { description: spec.description } : {}),
            ...(spec.idempotencyKey ? { headers: IdempotencyKey } : {}),
            body: spec.body,
            response: { ...responses, ...errorResponses(...spec.errors) },
          },
          links: Object.fromEntries(successes.map((s) => [s, links])),
        },
        async (req, reply) => {
          const request = asProcessRequest<Static<B>>(req);
          if ('start' in spec) {
            const r = await spec.start(request);
            return reply.status(r.status).send(r.body);
          }
          const built = await spec.build(request);
          const started = await startBuilt(built, spec);
          if (!started.body.created) await spec.existing?.(built);
          return reply.status(started.status).send(started.body);
        },
      );
    },

    list({ summary }) {
      const styles: readonly { segment?: string; kind: ProcessKind }[] = collection.styles ?? [{ kind: kinds[0]! }];
      for (const { segment, kind } of styles) {
        app.get(
          segment ? `${path}/${segment}` : path,
          {
            schema: {
              tags: [tag],
              operationId: `list${pascal(segment ?? '')}${noun}s`,
              summary: summary(segment, kind),
              querystring: Type.Object({ state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
              response: { 200: ProcessList, ...errorResponses(400, 401) },
            },
          },
          async (req) => processes.list({ kind, state: req.query.state, pageSize: req.query.pageSize, pageToken: req.query.pageToken }),
        );
      }
      if (!collection.listsAll) return;
      // Every style: of one kind, or by kind (the first when none is asked).
      const Kind = kinds.length > 1 ? Type.Object({ kind: Type.Optional(Type.Union(kinds.map((k) => Type.Literal(k)))) }).properties : {};
      app.get(
        path,
        {
          schema: {
            tags: [tag],
            operationId: `list${noun}s`,
            summary: summary(undefined, undefined),
            querystring: Type.Object({ ...Kind, state: Type.Optional(StateFilter), ...Paging }, { additionalProperties: false }),
            response: { 200: ProcessList, ...errorResponses(400, 401) },
          },
        },
        async (req) => {
          const q = req.query as { kind?: ProcessKind; state?: string; pageSize?: number; pageToken?: string };
          return processes.list({ kind: q.kind ?? kinds[0]!, state: q.state, pageSize: q.pageSize, pageToken: q.pageToken });
        },
      );
    },

    read<Q extends TSchema>(spec: ReadSpec<Q>) {
      const id = link(`read${noun}${pascal(spec.below ?? '')}`).operationId;
      app.get(
        `${path}/:processId${spec.below ? `/${spec.below}` : ''}`,
        {
          schema: {
            tags: [tag],
            operationId: id,
            summary: spec.summary,
            params: ProcessParams,
            ...(spec.querystring ? { querystring: spec.querystring } : {}),
            response: { 200: spec.response ?? ProcessView, ...errorResponses(401, 404, ...(spec.errors ?? [])) },
          },
        },
        async (req) => {
          handleOf(client, req.params.processId, kinds, what);
          return spec.get ? spec.get(asProcessRequest<unknown, { processId: string }, Static<Q>>(req)) : processes.get(req.params.processId);
        },
      );
    },

    action<B extends TSchema, A, R, P extends TObject = ProcessParams>(spec: UpdateAction<B, P, A, R> | OwnAction<B, P>) {
      const id = spec.operationId ?? `${camel(spec.action.replace(/:\w+/g, ''))}${noun}`;
      const params = spec.params ?? ProcessParams;
      if (Object.keys(params.properties).length === 1) link(id);
      const actKinds = spec.kinds ?? kinds;
      const actWhat = spec.what ?? what;
      app.post(
        `${path}/:processId/${spec.action}`,
        {
          ...(spec.bodyLimit ? { bodyLimit: spec.bodyLimit } : {}),
          schema: {
            tags: [tag],
            operationId: id,
            summary: spec.summary,
            params,
            ...(spec.idempotencyKey === false ? {} : { headers: IdempotencyKey }),
            ...(spec.body ? { body: spec.optionalBody ? Type.Optional(spec.body) : spec.body } : {}),
            response: { ...(spec.responses ?? { 200: Outcome }), ...errorResponses(...spec.errors) },
          },
        },
        async (req, reply) => {
          const request = asProcessRequest<Static<B>, Static<P>>(req);
          const processId = (req.params as { processId: string }).processId;
          if ('act' in spec) return spec.act(request, reply, handleOf(client, processId, actKinds, actWhat));
          // The request's own rules first (a 422 names the field), then the process (404 for another kind).
          const arg = await spec.request(request, operationId(request.headers));
          const handle = handleOf(client, processId, actKinds, actWhat);
          const outcome = await runUpdate(client, handle, spec.update, [arg], { what: actWhat, ...(spec.waitMs ? { waitMs: spec.waitMs } : {}) });
          return spec.answer(outcome, arg);
        },
      );
    },
  };
}

/**
 * An action whose body is an optional reason (stop, cancel, pause): the update gets the operation ID, the reason
 * when given, and `with` (what the action always asks, e.g. `deleteRegistration`).
 */
export function reasonAction<R, A extends { operationId: string; reason?: string }>(spec: {
  action: string;
  summary: string;
  update: UpdateDefinition<R, [A]>;
  answer: (outcome: R) => unknown;
  with?: Omit<A, 'operationId' | 'reason'>;
  responses?: Responses;
}): UpdateAction<typeof ReasonBody, ProcessParams, A, R> {
  return {
    action: spec.action,
    summary: spec.summary,
    body: ReasonBody,
    optionalBody: true,
    errors: [400, 401, 404, 409],
    ...(spec.responses ? { responses: spec.responses } : {}),
    update: spec.update,
    request: (req, operationId) => {
      const reason = (req.body as { reason?: string } | undefined)?.reason;
      return { operationId, ...spec.with, ...(reason ? { reason } : {}) } as A;
    },
    answer: spec.answer,
  };
}
