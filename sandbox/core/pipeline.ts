// What happens to every request, whatever its area: area detection, added latency, injected
// faults (before any authentication or handling), recording, and error bodies in the area's shape.
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { areaForUrl } from './areas.js';
import { installBodyParsers, loggableBody } from './body-parsers.js';
import type { SandboxContext } from './context.js';
import { AreaError, oauthErrors, type ErrorShape } from './errors.js';
import { redactHeaders } from './request-log.js';
import { requestState } from './request-state.js';
import { validationMessage, violationsFrom } from './validation.js';

export function installPipeline(app: FastifyInstance, ctx: SandboxContext): void {
  // TypeBox checks bodies strictly (no coercion, unknown fields kept so they can be refused)
  // and converts query/path strings to the declared types.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  installBodyParsers(app);

  app.addHook('onRequest', async (request) => {
    const state = requestState(request);
    state.startedAt = Date.now();
    state.area = areaForUrl(request.url);
  });

  // preValidation runs after body parsing, so a faulted request is still logged with its body.
  app.addHook('preValidation', async (request, reply) => {
    const state = requestState(request);
    const area = state.area;
    if (!area) return;
    const delay = ctx.latency.delayFor(area.name);
    if (delay > 0) await ctx.sleep(delay);
    const rule = ctx.faults.take({ area: area.name, method: request.method, url: request.url });
    if (!rule) return;
    state.faulted = true;
    if (rule.retryAfterSeconds !== undefined) reply.header('retry-after', String(rule.retryAfterSeconds));
    const body = rule.body !== undefined ? rule.body : area.errors.render({ status: rule.status, message: `Injected fault: HTTP ${rule.status}` });
    return reply.code(rule.status).send(body);
  });

  // An answer held back after the work was done (latency phase `after`); injected faults are not held.
  app.addHook('onSend', async (request) => {
    const state = requestState(request);
    if (!state.area || state.faulted) return;
    const delay = ctx.latency.delayFor(state.area.name, 'after');
    if (delay > 0) await ctx.sleep(delay);
  });

  app.addHook('onResponse', async (request, reply) => {
    const state = requestState(request);
    if (!state.area) return;
    const path = request.url.split('?')[0] ?? request.url;
    ctx.requests.record({
      area: state.area.name,
      ...(state.area.region ? { region: state.area.region } : {}),
      method: request.method,
      path,
      query: { ...(request.query as Record<string, unknown> | undefined) },
      headers: redactHeaders(request.headers),
      body: loggableBody(request),
      status: reply.statusCode,
      time: new Date(state.startedAt).toISOString(),
      durationMs: Date.now() - state.startedAt,
      faulted: state.faulted,
    });
  });

  app.setErrorHandler((error: FastifyError | AreaError, request, reply) => sendError(ctx, error, request, reply));

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    return sendError(ctx, new AreaError(404, `Not found: ${request.method} ${path}`), request, reply);
  });
}

function toShape(ctx: SandboxContext, error: FastifyError | AreaError, request: FastifyRequest): ErrorShape & { headers?: Record<string, string> } {
  if (error instanceof AreaError) {
    return { status: error.status, message: error.message, code: error.code, details: error.details, headers: error.headers };
  }
  if (error.validation) {
    const part = error.validationContext ?? 'body';
    const details = violationsFrom(error.validation, part);
    return { status: 400, message: validationMessage(details, part), details };
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 600 && status !== 500) {
    return { status, message: error.message };
  }
  (ctx.options.logger ?? request.log).error({ err: error, url: request.url }, 'sandbox: unexpected error');
  return { status: 500, message: 'Internal error' };
}

function sendError(ctx: SandboxContext, error: FastifyError | AreaError, request: FastifyRequest, reply: FastifyReply) {
  const shape = toShape(ctx, error, request);
  const family = requestState(request).area?.errors ?? oauthErrors;
  for (const [k, v] of Object.entries(shape.headers ?? {})) reply.header(k, v);
  return reply.code(shape.status).send(family.render(shape));
}
