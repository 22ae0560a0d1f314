// OpenAPI document built from the route schemas, with its UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { RELAYFLOW_VERSION } from '../../common/version.js';
import { EVENT_WEBHOOKS } from '../event-delivery-schema.js';
import { ErrorBody } from '../errors.js';
import { isRateLimited } from './rate-limit.js';
import { requiredScope } from './scopes.js';

type RouteSchema = FastifySchema & { hide?: boolean; response?: Record<string, unknown> };

/** `chata/embedded` -> `ChataEmbedded`: the words of a path in an operationId. */
export const pascal = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/**
 * The operationId of a route that does not name its own (the process routes do, api/routes/process-routes.ts):
 * the method and the path's words, each parameter as `By<Name>`, e.g. `patchVoiceCallsByCallIdLegsByLeg`.
 * Unique because a method and a path are.
 */
const operationIdOf = (method: string, url: string) =>
  method.toLowerCase() +
  url
    .split('/')
    .filter((s) => s && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `By${pascal(s.slice(1))}` : pascal(s)))
    .join('');

/**
 * What every route can answer because of the app around it, not its handler: 401 from the auth hook, 403
 * where the route needs more than the read-only scope, 429 from the per-key rate limit, 400 from validation,
 * 413 and 415 from body parsing, 503 and 504 from the deadline on every wait on Temporal
 * (api/processes/temporal-errors.ts). Declared here once so the document never misses them.
 */
function frameworkStatuses(route: Pick<RouteOptions, 'schema' | 'config' | 'url' | 'method'>): number[] {
  const schema = (route.schema ?? {}) as RouteSchema;
  const statuses: number[] = [];
  const config = route.config as { auth?: string; scope?: 'read-only' | 'operator' | 'admin' } | undefined;
  const auth = config?.auth;
  if (auth !== 'public') statuses.push(401);
  if (auth !== 'public' && auth !== 'signature' && requiredScope(route.method, route.url, config) !== 'read-only') statuses.push(403);
  if (isRateLimited(config)) statuses.push(429);
  if (schema.body || schema.querystring || schema.params || schema.headers) statuses.push(400);
  if (schema.body) statuses.push(413, 415);
  // Every /v1 route waits on Temporal: 503 when it cannot be reached, 504 when it does not answer in time.
  if (auth !== 'public' && route.url.startsWith('/v1/')) statuses.push(503, 504);
  return statuses;
}

export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    // The docs routes are public: they describe the API, they do not operate it.
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), auth: 'public' };
    const schema = route.schema as RouteSchema | undefined;
    if (!schema || schema.hide) return;
    const response = { ...schema.response };
    for (const status of frameworkStatuses(route)) response[status] ??= ErrorBody;
    // Public routes take no credentials: an empty security list overrides the document-wide one.
    const isPublic = (route.config as { auth?: string } | undefined)?.auth === 'public';
    const operationId = schema.operationId ?? operationIdOf([route.method].flat()[0]!, route.url);
    route.schema = { ...schema, operationId, response, ...(isPublic ? { security: [] } : {}) };
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'relayflow', version: RELAYFLOW_VERSION, description: 'Durable processes for the messaging and telephony platform.' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key from RELAYFLOW_API_KEYS' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
      webhooks: EVENT_WEBHOOKS,
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
