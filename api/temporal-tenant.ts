// Keeps a tenant key to its customer's processes, in the Temporal client interceptor every call of the API passes
// through, so no route can forget it: a start is stamped with the customer (RelayflowTenant); a call on one process
// (describe, query, signal, update, cancel, terminate) answers as for a process that does not exist when the process
// is another customer's; a start that would join another customer's running process is refused with 409.
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, TypedSearchAttributes, type Payload, type SearchAttributePair } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { TENANT } from '../common/search-attributes.js';
import { ApiError } from './errors.js';
import { currentTenant } from './plugins/actor.js';

type Description = temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse;
type Execution = { workflowId: string; runId?: string };

/** The tenant a described process belongs to; undefined for a process of no customer. */
function tenantOfDescription(d: Description): string | undefined {
  const payload = d.workflowExecutionInfo?.searchAttributes?.indexedFields?.[TENANT.name];
  if (!payload) return undefined;
  const value = defaultPayloadConverter.fromPayload<unknown>(payload as Payload);
  return typeof value === 'string' ? value : undefined;
}

/** The search attributes of a start, with the customer's. */
function stamped<T extends { typedSearchAttributes?: SearchAttributePair[] | TypedSearchAttributes }>(options: T, tenant: string): T {
  const given = options.typedSearchAttributes;
  const pairs = (given instanceof TypedSearchAttributes ? given.getAll() : (given ?? [])).filter((p) => p.key.name !== TENANT.name);
  return { ...options, typedSearchAttributes: [...pairs, { key: TENANT, value: tenant }] };
}

/** Another customer's process: to the routes, one that does not exist (404 as for an unknown ID). */
class ForeignProcessError extends WorkflowNotFoundError {}
const foreign = (e: Execution) => new ForeignProcessError(`no process ${e.workflowId}`, e.workflowId, e.runId);

/**
 * A start with this business key met another customer's process. Business keys are one namespace across customers
 * (they make the process IDs): a tenant key learns only that the key is taken, nothing of the process.
 */
const taken = (workflowId: string) =>
  new ApiError(409, 'key_taken', `the business key of ${workflowId} is taken by a process this API key cannot see: choose another key`, [
    { field: 'processId', rule: 'taken', message: workflowId },
  ]);

/** `client` is the client this interceptor is installed in (it describes a process before acting on it). */
export function tenantInterceptor(client: () => Client): WorkflowClientInterceptor {
  /** Throws WorkflowNotFoundError when the process is another customer's (through `describe` below). */
  const check = async (e: Execution) => {
    if (currentTenant()) await client().workflow.getHandle(e.workflowId, e.runId).describe();
  };
  /** Before a start that may join a running process (signal-with-start, update-with-start): whose is it? */
  const checkJoin = async (workflowId: string) => {
    try {
      await client().workflow.getHandle(workflowId).describe();
    } catch (err) {
      if (err instanceof ForeignProcessError) throw taken(workflowId);
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  };
  return {
    async startWithDetails(input, next) {
      const tenant = currentTenant();
      if (!tenant) return next(input);
      try {
        return await next({ ...input, options: stamped(input.options, tenant) });
      } catch (err) {
        // The key's process exists: the caller's own (answered as it is) or another customer's (refused).
        if (err instanceof WorkflowExecutionAlreadyStartedError) await checkJoin(input.options.workflowId);
        throw err;
      }
    },
    async signalWithStart(input, next) {
      const tenant = currentTenant();
      if (!tenant) return next(input);
      await checkJoin(input.options.workflowId);
      return next({ ...input, options: stamped(input.options, tenant) });
    },
    async startUpdateWithStart(input, next) {
      const tenant = currentTenant();
      if (!tenant) return next(input);
      await checkJoin(input.workflowStartOptions.workflowId);
      return next({ ...input, workflowStartOptions: stamped(input.workflowStartOptions, tenant) });
    },
    async describe(input, next) {
      const d = await next(input);
      const tenant = currentTenant();
      if (tenant && tenantOfDescription(d) !== tenant) throw foreign(input.workflowExecution as Execution);
      return d;
    },
    async query(input, next) {
      await check(input.workflowExecution as Execution);
      return next(input);
    },
    async signal(input, next) {
      await check(input.workflowExecution as Execution);
      return next(input);
    },
    async startUpdate(input, next) {
      await check(input.workflowExecution as Execution);
      return next(input);
    },
    async cancel(input, next) {
      await check(input.workflowExecution as Execution);
      return next(input);
    },
    async terminate(input, next) {
      await check(input.workflowExecution as Execution);
      return next(input);
    },
  };
}
