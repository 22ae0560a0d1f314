// The Temporal client interceptor that records who acted: every workflow start, signal and update the API
// makes carries the header `relayflow-actor` (an API key ID or `platform`, from api/plugins/actor.ts). The
// header lands in the history (started, signaled, update accepted events), where the timeline reads it.
// Headers are not encrypted by the payload codec: the key ID is not a secret and not personal data.
import type { Client, WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { tracingClientInterceptor } from '../common/temporal-tracing.js';
import { ACTOR_HEADER } from '../contracts/actor.js';
import { currentActor } from './plugins/actor.js';
import { API_SERVICE } from './plugins/tracing.js';
import { tenantInterceptor } from './temporal-tenant.js';

type Headers = Record<string, Payload>;
const withActor = (headers: Headers): Headers => {
  const actor = currentActor();
  return actor ? { ...headers, [ACTOR_HEADER]: defaultPayloadConverter.toPayload(actor) } : headers;
};

function actorInterceptor(): WorkflowClientInterceptor {
  return {
    startWithDetails: (input, next) => next({ ...input, headers: withActor(input.headers) }),
    signal: (input, next) => next({ ...input, headers: withActor(input.headers) }),
    signalWithStart: (input, next) => next({ ...input, headers: withActor(input.headers) }),
    startUpdate: (input, next) => next({ ...input, headers: withActor(input.headers) }),
    startUpdateWithStart: (input, next) =>
      next({ ...input, workflowStartHeaders: withActor(input.workflowStartHeaders), updateHeaders: withActor(input.updateHeaders) }),
  };
}

/**
 * The Client options' `interceptors` for the API's client: the trace (while tracing runs), the actor and the tenant
 * (`client` is the client they are installed in: the tenant's check describes a process first).
 */
export const apiClientInterceptors = (client: () => Client) => ({
  workflow: [tracingClientInterceptor(API_SERVICE), actorInterceptor(), tenantInterceptor(client)],
});
