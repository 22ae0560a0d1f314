// /_sandbox control routes: fault injection, latency, callback faults, reset and inspection.
// No authentication: the sandbox listens on loopback and exists for tests and local runs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { parseAreaName } from './areas.js';
import type { AreaName } from './area-mount.js';
import type { SandboxContext } from './context.js';
import { AreaError } from './errors.js';

const AreaFilter = Type.Optional(Type.String({ minLength: 1 }));

const FaultBody = Type.Object(
  {
    area: AreaFilter,
    method: Type.Optional(Type.String({ minLength: 1 })),
    pathContains: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Integer({ minimum: 100, maximum: 599 }),
    count: Type.Integer({ minimum: 1 }),
    retryAfterSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

const LatencyBody = Type.Object(
  { area: AreaFilter, ms: Type.Integer({ minimum: 0 }), phase: Type.Optional(Type.Union([Type.Literal('before'), Type.Literal('after')])) },
  { additionalProperties: false },
);

const CallbackFaultsBody = Type.Object(
  { drop: Type.Optional(Type.Integer({ minimum: 0 })), duplicate: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);

const RequestsQuery = Type.Object({
  area: AreaFilter,
  method: Type.Optional(Type.String()),
  pathContains: Type.Optional(Type.String()),
});

const CallbacksQuery = Type.Object({ area: AreaFilter });

function area(name: string | undefined, field = 'area'): AreaName | undefined {
  if (name === undefined) return undefined;
  const parsed = parseAreaName(name);
  if (!parsed)
    throw new AreaError(400, `Invalid request: field '${field}' names an unknown area "${name}"`, { details: [{ field, description: 'unknown area' }] });
  return parsed;
}

export function controlRoutes(ctx: SandboxContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/faults', { schema: { body: FaultBody } }, async (request) => {
      const { area: a, ...rest } = request.body;
      const fault = ctx.faults.add({ ...rest, area: area(a) });
      return { fault };
    });

    app.get('/faults', async () => ({
      faults: ctx.faults.list(),
      latency: ctx.latency.list(),
      callbackFaults: { drop: ctx.callbacks.faults.drop, duplicate: ctx.callbacks.faults.duplicate },
    }));

    // Clears every kind of fault: request faults, latency and callback faults.
    app.delete('/faults', async () => {
      ctx.faults.clear();
      ctx.latency.clear();
      ctx.callbacks.clearFaults();
      return { cleared: true };
    });

    app.post('/latency', { schema: { body: LatencyBody } }, async (request) => {
      ctx.latency.set(area(request.body.area), request.body.ms, request.body.phase);
      return { latency: ctx.latency.list() };
    });

    app.post('/callback-faults', { schema: { body: CallbackFaultsBody } }, async (request) => {
      const f = ctx.callbacks.faults;
      Object.assign(f, request.body);
      return { callbackFaults: { drop: f.drop, duplicate: f.duplicate } };
    });

    app.post('/reset', async () => {
      ctx.reset();
      return { reset: true };
    });

    app.get('/requests', { schema: { querystring: RequestsQuery } }, async (request) => {
      const q = request.query;
      return {
        requests: ctx.requests.list({
          area: area(q.area),
          ...(q.method ? { method: q.method } : {}),
          ...(q.pathContains ? { pathContains: q.pathContains } : {}),
        }),
      };
    });

    app.get('/callbacks', { schema: { querystring: CallbacksQuery } }, async (request) => {
      const a = area(request.query.area);
      return { callbacks: ctx.callbacks.list().filter((c) => a === undefined || parseAreaName(c.area) === a) };
    });
  };
}
