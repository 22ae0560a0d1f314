// Cancelling an onboarding: steps not started never start; running children are cancelled (each ends
// STOPPED in its own words); then what the steps made is undone in the reverse of the order they started,
// where the platform allows it, and every step says what happened to what it made.
import { condition, getExternalWorkflowHandle, startChild, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { BundleProvisioningInput, BundleProvisioningResult } from '../../../provisioning/contract.js';
import type { Compensation, StepView, UndoStepResult } from '../contract.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import type { Board } from './board.js';
import { boundInput, listedAs, onboardingActivities } from './run-step.js';

/** How long cancelled children get to end before compensation goes on without them. */
const STOP_WAIT = '2 minutes';

export async function compensate(board: Board): Promise<{ undone: string[]; kept: string[] }> {
  for (const v of board.views) {
    if (v.state === 'PENDING' || v.state === 'BLOCKED') board.set(v, 'STOPPED', 'never started: the onboarding was cancelled');
  }
  const stopping = board.views.filter((v) => board.open.has(v.name) && v.state !== 'SUCCEEDED');
  await Promise.all(
    stopping.map((v) =>
      getExternalWorkflowHandle(v.processId!)
        .cancel()
        .catch(() => undefined),
    ),
  );
  await condition(() => stopping.every((v) => !board.open.has(v.name)), STOP_WAIT);

  const undone: string[] = [];
  const kept: string[] = [];
  for (const name of [...board.startOrder].reverse()) {
    const v = board.view(name)!;
    const { resource, ...compensation } = await undo(board, v);
    Object.assign(v.resource, resource);
    v.compensation = compensation;
    (v.compensation.undone ? undone : kept).push(v.name);
    board.tracker.moveTo(board.tracker.status.state, `step ${v.name}: ${v.compensation.undone ? 'undone' : 'not undone'}, ${v.compensation.reason}`, {
      memo: false,
    });
  }
  return { undone, kept };
}

async function undo(board: Board, v: StepView): Promise<UndoStepResult> {
  try {
    if (v.kind === 'bundle-provisioning' && v.resource.bundleId && !board.open.has(v.name)) return await deleteBundleByItsProcess(board, v);
    const { projectId } = boundInput(board, board.plan(v.name), {} as { projectId?: string });
    return await onboardingActivities.undoStep({
      kind: v.kind,
      ...(projectId ? { projectId } : {}),
      ...(v.processId ? { processId: v.processId } : {}),
      resource: v.resource,
      ...(v.created !== undefined ? { created: v.created } : {}),
    });
  } catch (err) {
    return { undone: false, reason: `could not be undone: ${rootMessage(err)}` };
  }
}

/**
 * A bundle is deleted by a delete-only run of its own process (docs/bundle-wire.md), so the bundle's
 * process ends DELETED instead of still saying ACTIVE about a bundle that is gone.
 */
async function deleteBundleByItsProcess(board: Board, v: StepView): Promise<Compensation> {
  const p = board.plan(v.name).process!;
  const input: BundleProvisioningInput = { ...(p.input as BundleProvisioningInput), deleteBundleId: v.resource.bundleId! };
  const child = await startChild<(i: BundleProvisioningInput) => Promise<BundleProvisioningResult>>(p.workflowType, {
    workflowId: p.processId,
    args: [input],
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
    typedSearchAttributes: listedAs('bundle-provisioning', 'DELETING'),
  });
  const result = await child.result();
  v.processState = result.state;
  return result.state === 'DELETED'
    ? { undone: true, reason: `bundle ${v.resource.bundleId} deleted (${result.reason ?? 'by its process'})` }
    : { undone: false, reason: `the bundle's delete ended ${result.state}: ${result.reason ?? 'no reason given'}` };
}
