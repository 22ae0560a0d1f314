// Who is acting, for the audit: the API key's ID (never the key) or `platform` for signed callbacks, kept in
// an AsyncLocalStorage for the length of the request so the Temporal client interceptor (api/temporal-actor.ts)
// can write it into the headers of every start, signal and update the request makes.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PLATFORM_ACTOR } from '../../contracts/actor.js';

/** The one key ID function: the logs (keyId) and the audit (actor) show the same ID. */
export { keyIdOf } from './key-ring.js';

const actorStorage = new AsyncLocalStorage<{ actor: string; tenant?: string }>();

/** The actor of the current request, if any (undefined outside a request: workers, scripts). */
export const currentActor = (): string | undefined => actorStorage.getStore()?.actor;

/**
 * The customer the current request's key acts for (api/temporal-tenant.ts keeps it to that customer's processes);
 * undefined for a key of every customer, a signed callback, and outside a request.
 */
export const currentTenant = (): string | undefined => actorStorage.getStore()?.tenant;

/**
 * Every request runs in its actor's context. A callback-style hook, so `done` (and with it the rest of the
 * request: the handler and its Temporal calls) runs inside `actorStorage.run`.
 */
export const actorPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onRequest', (request, _reply, done) => {
      const mode = request.routeOptions.config?.auth;
      // After the auth hook: a key that reached here is a recognised one.
      const actor = mode === 'signature' ? PLATFORM_ACTOR : request.apiKey?.keyId;
      if (!actor) return done();
      const tenant = mode === 'signature' ? undefined : request.apiKey?.tenant;
      actorStorage.run(tenant ? { actor, tenant } : { actor }, done);
    });
  },
  { name: 'relayflow-actor', dependencies: ['relayflow-api-key-auth'] },
);
