// A process's customer (RelayflowTenant) follows it into the processes it starts: a child workflow, and a new run
// given search attributes of its own (one given none keeps the run's, as Temporal copies them). Done here, once
// for every workflow, so no process forgets it. It adds no command and no await: only a field of the child's start.
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { TypedSearchAttributes, type SearchAttributePair, type SearchAttributes } from '@temporalio/common';
import { TENANT } from '../../../common/search-attributes.js';

interface StartOptions {
  typedSearchAttributes?: SearchAttributePair[] | TypedSearchAttributes;
  searchAttributes?: SearchAttributes;
}

/** The options with the run's tenant added, when the run has one and the options name none. */
function withTenant<T extends StartOptions>(options: T, always: boolean): T {
  const tenant = workflowInfo().typedSearchAttributes.get(TENANT);
  if (!tenant) return options;
  const given = options.typedSearchAttributes;
  const pairs = given instanceof TypedSearchAttributes ? given.getAll() : (given ?? []);
  const untyped = options.searchAttributes;
  if (pairs.some((p) => p.key.name === TENANT.name) || untyped?.[TENANT.name] !== undefined) return options;
  // A new run given no search attributes keeps the run's (tenant included): nothing to add.
  if (!always && given === undefined && untyped === undefined) return options;
  return { ...options, typedSearchAttributes: [...pairs, { key: TENANT, value: tenant }] };
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      startChildWorkflowExecution: (input, next) => next({ ...input, options: withTenant(input.options, true) }),
      continueAsNew: (input, next) => next({ ...input, options: withTenant(input.options, false) }),
    },
  ],
});
