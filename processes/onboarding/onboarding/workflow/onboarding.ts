// Customer onboarding: runs the plan's steps (subproject, bundle, webhook, senders, templates, sender ID
// registrations) as child processes in dependency order, as many at once as the order allows. A step that
// fails for good blocks the steps that need it and leaves the rest running; the caller retries it, skips
// it, or cancels the onboarding, which stops what runs and undoes what it can in reverse order. Steps can
// be added while it runs. Ends COMPLETED (every step succeeded or skipped) or CANCELLED.
import { allHandlersFinished, condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  addStepsUpdate,
  cancelOnboardingUpdate,
  childStateSignal,
  retryStepUpdate,
  skipStepUpdate,
  type OnboardingDetails,
  type OnboardingInput,
  type OnboardingResult,
  type OnboardingState,
  type OperationOutcome,
  type RetryStepRequest,
  type StepPlan,
} from '../contract.js';
import { relaunchSignal, resubmitSignal } from '../../../provisioning/contract.js';
import { operationsOn } from '../../../shared/workflow/actions.js';
import { HandledMemory } from '../../../shared/workflow/handled-memory.js';
import { trackProcess } from '../../../shared/workflow/process-state.js';
import { Board } from './board.js';
import { compensate } from './compensation.js';
import { applyReport, runStep } from './run-step.js';
import { inPlaceRetry, settleDependencies } from './step-rules.js';

const ENDED: readonly OnboardingState[] = ['COMPLETED', 'CANCELLING', 'CANCELLED'];
const SKIPPABLE = ['FAILED', 'BLOCKED', 'PENDING'];

export async function onboarding(input: OnboardingInput): Promise<OnboardingResult> {
  const tracker = trackProcess<OnboardingState, OnboardingDetails>('onboarding', 'RUNNING', { key: input.key, planHash: input.planHash, steps: [] });
  const board = new Board(tracker, input.steps);
  const operations = new HandledMemory<OperationOutcome>();
  const operation = operationsOn(operations);
  let cancelReason: string | undefined;
  const state = () => tracker.status.state;
  const cancelling = () => cancelReason !== undefined;
  const ended = () => ENDED.includes(state()) || cancelling();

  setHandler(childStateSignal, (r) => applyReport(board, r));

  operation(retryStepUpdate, retry, refuseUnlessStepIsOpen);

  operation(
    skipStepUpdate,
    (req): OperationOutcome => {
      const v = board.view(req.step)!;
      if (!SKIPPABLE.includes(v.state))
        return { accepted: false, state: v.state, reason: `step ${v.name} is ${v.state}; only a ${SKIPPABLE.join(', ')} step can be skipped` };
      board.set(v, 'SKIPPED', `skipped by the caller${req.reason ? `: ${req.reason}` : ''}`);
      return { accepted: true, state: 'SKIPPED' };
    },
    refuseUnlessStepIsOpen,
  );

  operation(
    cancelOnboardingUpdate,
    (req): OperationOutcome => {
      cancelReason = `cancelled by the caller${req.reason ? `: ${req.reason}` : ''}`;
      board.touch();
      return { accepted: true, state: 'CANCELLING' };
    },
    refuseWhenEnded,
  );

  operation(
    addStepsUpdate,
    (req): OperationOutcome => {
      board.add(req.steps);
      return { accepted: true, state: state() };
    },
    (req) => {
      refuseWhenEnded();
      checkNewSteps(req.steps);
    },
  );

  /** Retry and skip: a new operation needs a known step and a running onboarding. */
  function refuseUnlessStepIsOpen(req: { step: string }): void {
    refuseWhenEnded();
    if (!board.view(req.step)) throw new Error(`no step named ${req.step}; steps: ${board.views.map((v) => v.name).join(', ')}`);
  }

  function refuseWhenEnded(): void {
    if (ended()) throw new Error(`the onboarding is ${cancelling() && state() !== 'CANCELLED' ? 'CANCELLING' : state()}`);
  }

  /** The API checks the same; a step added by another way gets the same answer. */
  function checkNewSteps(steps: StepPlan[]): void {
    const names = new Set(board.views.map((v) => v.name));
    for (const s of steps) {
      if (names.has(s.name)) throw new Error(`a step named ${s.name} exists already`);
      names.add(s.name);
    }
    for (const s of steps) {
      const missing = s.after.find((d) => !names.has(d.step));
      if (missing) throw new Error(`step ${s.name} needs ${missing.step}, which is not a step of this onboarding`);
    }
  }

  async function retry(req: RetryStepRequest): Promise<OperationOutcome> {
    const v = board.view(req.step)!;
    if (v.state !== 'FAILED') return { accepted: false, state: v.state, reason: `step ${v.name} is ${v.state}; only a FAILED step can be retried` };
    if (!board.open.has(v.name)) {
      void runStep(board, v, cancelling);
      return { accepted: true, state: v.state };
    }
    // The child still runs, waiting for a fix: it takes the retry itself (it cannot take an update from us).
    const how = inPlaceRetry(v.kind, v.processState);
    if (!how) {
      return {
        accepted: false,
        state: v.state,
        reason: `the ${v.kind} process ${v.processId} still runs (${v.processState ?? 'no state yet'}); act on it through its own route, or skip this step`,
      };
    }
    const operationId = `${workflowInfo().workflowId}/${req.operationId}`;
    const child = getExternalWorkflowHandle(v.processId!);
    if (how === 'resubmit') await child.signal(resubmitSignal, { operationId, ...req.resubmit });
    else await child.signal(relaunchSignal, { operationId, ...req.relaunch });
    board.set(v, 'RUNNING', `${how === 'resubmit' ? 'resubmission' : 'relaunch'} asked of ${v.processId} by the caller (operation ${req.operationId})`);
    return { accepted: true, state: v.state };
  }

  let told = '';
  for (;;) {
    if (cancelling()) break;
    for (const v of settleDependencies(board.views, board.plans)) void runStep(board, v, cancelling);
    const next = overall();
    if (`${next.state}|${next.reason}` !== told) tracker.moveTo(next.state, next.reason);
    told = `${next.state}|${next.reason}`;
    if (next.state === 'COMPLETED') break;
    const seen = board.version;
    await condition(() => board.version !== seen || cancelling());
  }

  if (cancelReason !== undefined) {
    tracker.moveTo('CANCELLING', cancelReason);
    const { undone, kept } = await compensate(board);
    tracker.moveTo('CANCELLED', `${cancelReason}; undone: ${undone.join(', ') || 'nothing'}; not undone: ${kept.join(', ') || 'nothing'}`);
  }
  await condition(allHandlersFinished);
  return { state: state(), steps: board.views };

  function overall(): { state: OnboardingState; reason?: string } {
    const views = board.views;
    if (views.every((v) => v.state === 'SUCCEEDED' || v.state === 'SKIPPED')) return { state: 'COMPLETED', reason: 'every step succeeded or was skipped' };
    if (views.some((v) => v.state === 'RUNNING' || v.state === 'PENDING')) return { state: 'RUNNING' };
    const failed = views.filter((v) => v.state === 'FAILED').map((v) => v.name);
    return { state: 'WAITING_FOR_CALLER', reason: `step ${failed.join(', ')} failed: retry, skip or cancel` };
  }
}
