// Event subscriptions (admin): where relayflow pushes every process's state changes, signed per the Standard
// Webhooks specification. The signing secret is shown once, at creation and at each rotation. A tenant key's
// subscriptions are its customer's (they get that customer's events only) and it finds no other one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { TENANT_PATTERN, TENANT_RULE } from '../../common/api-keys.js';
import type { EventSettings } from '../../common/config/events.js';
import { privateAddressProblem } from '../../common/url-guard.js';
import { DESCRIPTORS, PROCESS_KINDS } from '../../processes/kinds.js';
import type { EventSubscriptionStore } from '../../store/event-subscriptions.js';
import { ApiError, errorResponses, invalid, notFound, type ErrorDetail } from '../errors.js';
import { currentTenant } from '../plugins/actor.js';

export interface EventSubscriptionRouteOptions {
  /** Without the store, every route answers 503. */
  subscriptions?: EventSubscriptionStore;
  settings: Pick<EventSettings, 'allowPrivateUrls'>;
}

/** The operations on one subscription, linked from its creation's answer. */
const ITEM_OPERATIONS = [
  'readEventSubscription',
  'listEventDeliveryAttempts',
  'rotateEventSubscriptionSecret',
  'replayEventSubscription',
  'enableEventSubscription',
  'deleteEventSubscription',
];

const STATE_NAMES = [...new Set(DESCRIPTORS.flatMap((d) => d.states.all))].sort();

const Id = Type.Object({
  subscriptionId: Type.String({ pattern: '^sub_[0-9A-HJKMNP-TV-Z]{26}$', maxLength: 30, description: 'The subscription ID (sub_ and a ULID)' }),
});

const NewSubscription = Type.Object(
  {
    url: Type.String({
      format: 'webhook-url',
      minLength: 1,
      maxLength: 2_048,
      description: 'Where events are POSTed: an http(s) URL to a public address (redirects are not followed)',
    }),
    kinds: Type.Optional(
      Type.Array(Type.Enum([...PROCESS_KINDS]), { minItems: 1, uniqueItems: true, description: 'The process kinds it wants; absent: every kind' }),
    ),
    states: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'The states it wants; absent: every state',
      }),
    ),
    tenant: Type.Optional(
      Type.String({
        pattern: TENANT_PATTERN.source,
        description: `Only this customer's events (${TENANT_RULE}); absent: every customer's. A tenant API key's subscription is its own customer's`,
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

const SubscriptionView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  kinds: Type.Optional(Type.Array(Type.String())),
  states: Type.Optional(Type.Array(Type.String())),
  tenant: Type.Optional(Type.String({ description: "The one customer whose events it gets; absent: every customer's" })),
  description: Type.Optional(Type.String()),
  status: Type.Enum(['active', 'disabled'], {
    description: 'disabled: its deliveries failed for RELAYFLOW_EVENTS_RETRY_FOR_MS (disabledReason says which); enable resumes them',
  }),
  disabledReason: Type.Optional(Type.String()),
  failingSince: Type.Optional(Type.String({ format: 'date-time', description: 'Since when its deliveries have been failing' })),
  pending: Type.Integer({ description: 'Deliveries still to make' }),
  createdAt: Type.String({ format: 'date-time' }),
});

const WithSecret = Type.Object({ ...SubscriptionView.properties, secret: Type.String({ description: 'The signing secret (whsec_...): shown only now' }) });

const Rotation = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 7 * 86_400, default: 86_400, description: 'How long the old secret keeps signing beside the new one' }),
    ),
  },
  { additionalProperties: false },
);

const Replay = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Every kept event from this time on is delivered again (with its own webhook-id)' }) },
  { additionalProperties: false },
);

const Attempt = Type.Object({
  eventId: Type.String(),
  attempt: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  statusCode: Type.Optional(Type.Integer({ description: "The receiver's answer; absent when it gave none" })),
  latencyMs: Type.Integer(),
  error: Type.Optional(Type.String()),
});

const AttemptPage = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    before: Type.Optional(Type.String({ format: 'date-time', description: 'Only attempts older than this (the last one of the page before)' })),
  },
  { additionalProperties: false },
);

/** States that no wanted kind has: a subscription that would never get an event. */
function stateProblems(kinds: readonly string[] | undefined, states: readonly string[] | undefined): ErrorDetail[] {
  if (!states) return [];
  const wanted = kinds ? DESCRIPTORS.filter((d) => kinds.includes(d.kind)) : DESCRIPTORS;
  const known = new Set(wanted.flatMap((d) => d.states.all));
  return states
    .map((s, i) => ({ s, i }))
    .filter(({ s }) => !known.has(s))
    .map(({ s, i }) => ({
      field: `body.states.${i}`,
      rule: 'enum',
      message: `${s} is not a state of ${kinds ? kinds.join(', ') : 'any kind'} (${STATE_NAMES.length} states exist: GET /openapi.json)`,
    }));
}

export const eventSubscriptionRoutes: FastifyPluginAsyncTypebox<EventSubscriptionRouteOptions> = async (app, { subscriptions, settings }) => {
  const store = (): EventSubscriptionStore => {
    if (!subscriptions)
      throw new ApiError(
        503,
        'event_store_unavailable',
        'event subscriptions need the store: set RELAYFLOW_DATABASE_URL (PostgreSQL) for the API and the workers',
      );
    return subscriptions;
  };
  // A tenant key's request finds its own customer's subscriptions only: another's is not found, as an unknown ID.
  const view = async (id: string) => {
    const sub = await store().get(id, currentTenant());
    if (!sub) throw notFound(`event subscription ${id}`);
    return { ...sub, pending: await store().pendingCount(id) };
  };
  const common = { tags: ['events'] };
  const admin = { scope: 'admin' as const };

  app.post(
    '/v1/event-subscriptions',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'createEventSubscription',
        summary: 'Subscribe a URL to process events; the answer carries the signing secret, shown only once',
        body: NewSubscription,
        response: { 201: WithSecret, ...errorResponses(400, 401, 403, 422, 503) },
      },
      // A client (or a fuzzer's stateful phase) goes on from the subscription made to what may be done with it.
      links: {
        201: Object.fromEntries(ITEM_OPERATIONS.map((operationId) => [operationId, { operationId, parameters: { subscriptionId: '$response.body#/id' } }])),
      },
    },
    async (req, reply) => {
      const { url, kinds, states } = req.body;
      const problems: ErrorDetail[] = [];
      const keyTenant = currentTenant();
      if (keyTenant && req.body.tenant !== undefined && req.body.tenant !== keyTenant) {
        problems.push({ field: 'body.tenant', rule: 'own-tenant', message: "a tenant API key subscribes to its own customer's events only" });
      }
      // The URL's shape is the schema's (format webhook-url); where its host points is a lookup.
      if (!settings.allowPrivateUrls) {
        const inside = await privateAddressProblem(url);
        if (inside) problems.push({ field: 'body.url', rule: 'public-address', message: `${inside} (RELAYFLOW_EVENTS_ALLOW_PRIVATE_URLS is off)` });
      }
      problems.push(...stateProblems(kinds, states));
      if (problems.length > 0) throw invalid(problems);
      const tenant = keyTenant ?? req.body.tenant;
      const { subscription, secret } = await store().create({ ...req.body, ...(tenant ? { tenant } : {}) });
      return reply.code(201).send({ ...subscription, pending: 0, secret });
    },
  );

  app.get(
    '/v1/event-subscriptions',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'listEventSubscriptions',
        summary: "Every event subscription (without secrets); a tenant API key's own customer's only",
        response: { 200: Type.Object({ subscriptions: Type.Array(SubscriptionView) }), ...errorResponses(401, 403, 503) },
      },
    },
    async () => ({
      subscriptions: await Promise.all((await store().list(currentTenant())).map(async (s) => ({ ...s, pending: await store().pendingCount(s.id) }))),
    }),
  );

  app.get(
    '/v1/event-subscriptions/:subscriptionId',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'readEventSubscription',
        summary: 'One event subscription (without its secret)',
        params: Id,
        response: { 200: SubscriptionView, ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req) => view(req.params.subscriptionId),
  );

  app.delete(
    '/v1/event-subscriptions/:subscriptionId',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'deleteEventSubscription',
        summary: 'Remove a subscription and every delivery still to make to it',
        params: Id,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req, reply) => {
      if (!(await store().delete(req.params.subscriptionId, currentTenant()))) throw notFound(`event subscription ${req.params.subscriptionId}`);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/event-subscriptions/:subscriptionId/rotate-secret',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'rotateEventSubscriptionSecret',
        summary: 'A new signing secret (shown only now); the old one keeps signing beside it for overlapSeconds',
        params: Id,
        body: Type.Optional(Rotation),
        response: {
          200: Type.Object({ secret: Type.String(), previousExpiresAt: Type.String({ format: 'date-time' }) }),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      },
    },
    async (req) => {
      const rotated = await store().rotateSecret(req.params.subscriptionId, (req.body?.overlapSeconds ?? 86_400) * 1000, currentTenant());
      if (!rotated) throw notFound(`event subscription ${req.params.subscriptionId}`);
      return rotated;
    },
  );

  app.post(
    '/v1/event-subscriptions/:subscriptionId/enable',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'enableEventSubscription',
        summary: 'Active again: its deliveries resume from the first one not delivered',
        params: Id,
        response: { 200: SubscriptionView, ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req) => {
      if (!(await store().enable(req.params.subscriptionId, currentTenant()))) throw notFound(`event subscription ${req.params.subscriptionId}`);
      return view(req.params.subscriptionId);
    },
  );

  app.post(
    '/v1/event-subscriptions/:subscriptionId/replay',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'replayEventSubscription',
        summary: 'Deliver again every kept event from a time on (RELAYFLOW_EVENTS_KEEP_MS says how far back events are kept)',
        params: Id,
        body: Replay,
        response: { 202: Type.Object({ queued: Type.Integer() }), ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req, reply) => {
      const queued = await store().replay(req.params.subscriptionId, new Date(req.body.since), currentTenant());
      if (queued === undefined) throw notFound(`event subscription ${req.params.subscriptionId}`);
      return reply.code(202).send({ queued });
    },
  );

  app.get(
    '/v1/event-subscriptions/:subscriptionId/attempts',
    {
      config: admin,
      schema: {
        ...common,
        operationId: 'listEventDeliveryAttempts',
        summary: "The subscription's delivery log: every attempt, newest first",
        params: Id,
        querystring: AttemptPage,
        response: { 200: Type.Object({ attempts: Type.Array(Attempt) }), ...errorResponses(400, 401, 403, 404, 503) },
      },
    },
    async (req) => {
      await view(req.params.subscriptionId);
      return { attempts: await store().attempts(req.params.subscriptionId, req.query.limit, req.query.before ? new Date(req.query.before) : undefined) };
    },
  );
};
