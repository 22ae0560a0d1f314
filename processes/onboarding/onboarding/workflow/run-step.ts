// Running one step: the webhook as one activity; every other kind as a child process under its usual
// business ID (so it is its own process in the list and the timeline), abandoned when the onboarding
// ends (templates and senders go on watching). The child's reports (only of the changes the step rules react
// to) and its end, with the resource IDs its result or its failure names, move the step.
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  startChild,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { KIND, STATE } from '../../../../common/search-attributes.js';
import {
  RESOURCE_FIELDS,
  type ChildStateReport,
  type OnboardingActivities,
  type ProcessStepKind,
  type ResourceIds,
  type StepPlan,
  type StepView,
} from '../contract.js';
import { descriptorOf } from '../../../kinds.js';
import { platformActivityOptions } from '../../../shared/workflow/activity-options.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import type { Board } from './board.js';
import { outcomeOf, withValue } from './step-rules.js';

export const onboardingActivities = proxyActivities<OnboardingActivities>(platformActivityOptions);

/** Starts the step (again, on a retry); returns once its child has ended or the webhook is done. */
export async function runStep(board: Board, v: StepView, cancelling: () => boolean): Promise<void> {
  const plan = board.plan(v.name);
  v.attempts += 1;
  const attempt = v.attempts;
  board.set(v, 'RUNNING', attempt > 1 ? `started again (attempt ${attempt})` : 'started');
  if (!board.startOrder.includes(v.name)) board.startOrder.push(v.name);

  if (plan.kind === 'webhook') {
    try {
      const r = await onboardingActivities.ensureWebhook(boundInput(board, plan, plan.webhook!));
      v.resource.webhookId = r.webhookId;
      v.created = r.created;
      board.set(v, 'SUCCEEDED', r.created ? `webhook ${r.webhookId} created` : `a webhook with this target existed (${r.webhookId}); it is used as it is`);
    } catch (err) {
      board.set(v, 'FAILED', `the webhook could not be set up: ${rootMessage(err)}`);
    }
    return;
  }

  const p = plan.process!;
  const input = boundInput(board, plan, p.input);
  v.processId = p.processId;
  board.open.add(v.name);
  try {
    const child = await startChild(p.workflowType, {
      workflowId: p.processId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // A retry after a run ended starts a new run under the same ID, as the process's own route does.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      typedSearchAttributes: listedAs(plan.kind),
    });
    // A cancel that came while the child was starting could not reach it: it is stopped now.
    if (cancelling())
      await getExternalWorkflowHandle(p.processId)
        .cancel()
        .catch(() => undefined);
    const result: unknown = await child.result();
    if (attempt === v.attempts) Object.assign(v.resource, resultResources(result));
    childEnded(board, v, attempt, resultState(v, result), resultReason(result), cancelling);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) {
      if (attempt === v.attempts)
        board.set(v, 'FAILED', `the process ${p.processId} is already running outside this onboarding: stop it, then retry this step, or skip it`);
    } else {
      // The report the child sent as it failed does not arrive (it closed in the same task): its failure names them.
      if (attempt === v.attempts) Object.assign(v.resource, failureResources(err));
      childEnded(board, v, attempt, isCancellation(err) ? 'STOPPED' : 'FAILED', rootMessage(err), cancelling);
    }
  } finally {
    if (attempt === v.attempts) board.open.delete(v.name);
    board.touch();
  }
}

/** `input` with the step's bindings filled from the steps they name (a binding whose step made nothing is left out). */
export function boundInput<T>(board: Board, plan: StepPlan, input: T): T {
  let bound: unknown = input;
  for (const b of plan.bind ?? []) {
    const value = board.view(b.from)?.resource[b.field];
    if (value !== undefined) bound = withValue(bound, b.into, value);
  }
  return bound as T;
}

/** A report from the step's child: the step follows the child's state. */
export function applyReport(board: Board, r: ChildStateReport): void {
  const v = board.views.find((s) => s.processId === r.processId);
  if (!v) return;
  v.processState = r.state;
  Object.assign(v.resource, r.resource ?? {});
  board.touch();
  const outcome = outcomeOf(v.kind, r.state);
  const words = `${r.processId} is ${r.state}${r.reason ? `: ${r.reason}` : ''}`;
  if (v.state === 'RUNNING' && outcome === 'ok') board.set(v, 'SUCCEEDED', words);
  else if (v.state === 'RUNNING' && outcome === 'failed') board.set(v, 'FAILED', words);
  // The child moved on from its failure (a retry in place, or the caller acted on it through its own route).
  else if (v.state === 'FAILED' && board.open.has(v.name) && outcome !== 'failed') board.set(v, outcome === 'ok' ? 'SUCCEEDED' : 'RUNNING', words);
}

function childEnded(board: Board, v: StepView, attempt: number, state: string, reason: string | undefined, cancelling: () => boolean): void {
  if (attempt !== v.attempts) return; // a retry has started a newer run
  v.processState = state;
  if (v.state === 'SUCCEEDED' || v.state === 'SKIPPED') return;
  if (cancelling()) return board.set(v, 'STOPPED', `stopped by the cancel (${state})`);
  const words = `the process ended ${state}${reason ? `: ${reason}` : ''}`;
  board.set(v, outcomeOf(v.kind, state) === 'ok' ? 'SUCCEEDED' : 'FAILED', words);
}

/** A child's result names its final state (a subproject's says nothing: it completes only when READY). */
function resultState(v: StepView, result: unknown): string {
  const state = (result as { state?: unknown } | undefined)?.state;
  if (typeof state === 'string') return state;
  return v.kind === 'subproject' ? 'READY' : 'COMPLETED';
}

function resultReason(result: unknown): string | undefined {
  const reason = (result as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}

/** The search attributes a child of `kind` is listed with from its start, in the state it starts in: it then writes none. */
export function listedAs(kind: ProcessStepKind, state = descriptorOf(kind).states.initial) {
  return [
    { key: KIND, value: kind },
    { key: STATE, value: state },
  ];
}

/** The platform resource IDs a child's result names. */
function resultResources(result: unknown): ResourceIds {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  const ids: ResourceIds = {};
  for (const f of RESOURCE_FIELDS) if (typeof r[f] === 'string') ids[f] = r[f];
  return ids;
}

/** The platform resource IDs a failed child's own failure names in its first detail (shared/process-state.ts withResourceIds). */
function failureResources(err: unknown): ResourceIds {
  const own = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  return own instanceof ApplicationFailure ? resultResources(own.details?.[0]) : {};
}
