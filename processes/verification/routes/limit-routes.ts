// The verification limits' routes: the configured rate limits (read-only), a prefix's SMS-pumping guard as it stands
// (read-only: its counts, its block and its decisions), and an operator's lift of a block (admin).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { MAX_RATE_LIMIT_KEYS, RATE_LIMIT_KEY_PATTERN } from '../../../common/verification-limits.js';
import type { PumpingGuardView } from '../../../store/index.js';
import { currentActor } from '../../../api/plugins/actor.js';
import { errorResponses, notFound } from '../../../api/errors.js';
import type { PumpingGuards } from './pumping.js';
import type { RateLimits } from './rate-limits.js';
import { verification } from '../verification/kind.js';

/** A start's `rateLimits`: values of the caller's keys, by name (Twilio Verify's RateLimits map). */
export const RateLimitKeys = Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\u0000-\\u001F\\u007F]+$' }), {
  maxProperties: MAX_RATE_LIMIT_KEYS,
  // propertyNames, not a pattern key: with patternProperties a name outside the pattern needs additionalProperties
  // false, which generators of valid requests (the fuzzer) do not follow (ST202, as for campaign params).
  propertyNames: { pattern: RATE_LIMIT_KEY_PATTERN },
  description:
    'Values to rate-limit this start by, under the names the configured limits count (e.g. {"ip": "203.0.113.7", "user": "u-42"}); ' +
    'names no limit counts are ignored. Stored only as a keyed hash',
});

const Prefix = Type.Object({ prefix: Type.String({ pattern: '^[1-9][0-9]{1,14}$', maxLength: 15, description: 'Leading digits of E.164 numbers, no +' }) });

const LimitView = Type.Object({
  id: Type.String(),
  key: Type.Optional(Type.String({ description: 'Counts per value of this key in rateLimits' })),
  country: Type.Optional(Type.String()),
  prefix: Type.Optional(Type.String()),
  max: Type.Integer(),
  windowSeconds: Type.Integer(),
});

const Decision = Type.Object({
  at: Type.String({ format: 'date-time' }),
  kind: Type.String({ description: 'blocked, lifted or expired' }),
  starts: Type.Integer(),
  successes: Type.Integer(),
  by: Type.Optional(Type.String({ description: 'The API key ID that lifted it' })),
  note: Type.Optional(Type.String()),
});

const GuardView = Type.Object({
  prefix: Type.String(),
  enabled: Type.Boolean(),
  windowSeconds: Type.Number(),
  minStarts: Type.Integer(),
  floor: Type.Number({ description: 'Share of starts that must report a correct code' }),
  action: Type.String({ description: 'block, or the method a start to a blocked prefix is moved to' }),
  starts: Type.Integer({ description: 'In the window' }),
  successes: Type.Integer({ description: 'In the window' }),
  blocked: Type.Boolean(),
  blockedSince: Type.Optional(Type.String({ format: 'date-time' })),
  blockedUntil: Type.Optional(Type.String({ format: 'date-time' })),
  decisions: Type.Array(Decision, { description: 'Newest first, at most 20' }),
});

const iso = (ms: number) => new Date(ms).toISOString();

export const limitRoutes: FastifyPluginAsyncTypebox<{ limits: RateLimits; pumping: PumpingGuards; waitMs: number }> = async (
  app,
  { limits, pumping, waitMs },
) => {
  const s = pumping.settings;
  const view = (prefix: string, v: PumpingGuardView | undefined) => {
    const blocked = v?.blocked && v.blocked.until > Date.now() ? v.blocked : undefined;
    return {
      prefix,
      enabled: s.enabled,
      windowSeconds: (v?.windowMs ?? s.windowMs) / 1000,
      minStarts: v?.thresholds.minStarts ?? s.minStarts,
      floor: v?.thresholds.floor ?? s.floor,
      action: s.action,
      starts: v?.totals.starts ?? 0,
      successes: v?.totals.successes ?? 0,
      blocked: Boolean(blocked),
      ...(blocked ? { blockedSince: iso(blocked.since), blockedUntil: iso(blocked.until) } : {}),
      decisions: (v?.decisions ?? []).map((d) => ({ ...d, at: iso(d.at) })),
    };
  };

  app.get(
    '/v1/verification-rate-limits',
    {
      schema: {
        tags: [verification.collection.tag],
        summary: 'The configured rate limits (RELAYFLOW_VERIFICATION_RATE_LIMITS): by a key the caller passes in rateLimits, by country, by prefix',
        response: { 200: Type.Object({ limits: Type.Array(LimitView) }), ...errorResponses(401) },
      },
    },
    async () => ({ limits: limits.limits.map(({ windowMs, ...l }) => ({ ...l, windowSeconds: windowMs / 1000 })) }),
  );

  app.get(
    '/v1/verification-pumping-guards/:prefix',
    {
      schema: {
        tags: [verification.collection.tag],
        summary: "A destination prefix's SMS-pumping guard: starts and correct codes in its window, whether it is blocked, its decisions",
        params: Prefix,
        response: { 200: GuardView, ...errorResponses(400, 401) },
      },
    },
    async (req) => view(req.params.prefix, await pumping.read(req.params.prefix, Date.now() + waitMs)),
  );

  app.post(
    '/v1/verification-pumping-guards/:prefix/lift',
    {
      config: { scope: 'admin' },
      schema: {
        tags: [verification.collection.tag],
        summary: "Lift a prefix's pumping block (admin): starts to it go again (every API instance within the guard's cache time) and its counts start afresh",
        params: Prefix,
        body: Type.Optional(Type.Object({ note: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false })),
        response: { 200: GuardView, ...errorResponses(400, 401, 404) },
      },
    },
    async (req) => {
      const { prefix } = req.params;
      const actor = currentActor();
      const v = await pumping.lift(prefix, actor, req.body?.note, Date.now() + waitMs);
      if (!v) throw notFound(`a pumping guard for +${prefix}`);
      req.log.info({ prefix, by: actor }, 'verification pumping block lifted');
      return view(prefix, v);
    },
  );
};
