// Bundle provisioning: create the bundle (a subproject, a conversation app, an SMS app in one region),
// follow it through BUNDLE_DONE webhooks with a polling fallback to ACTIVE or FAILED (the platform's
// reasons kept), and delete it on request (the `delete` update while running; a delete-only run under
// the same key once a run has ended). FAILED is a result, not a failed execution, so a parent (the
// onboarding) reads it like ACTIVE. Contract: docs/bundle-wire.md.
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  BUNDLE_KEY_LABEL,
  BUNDLE_RUN_LABEL,
  deleteUpdate,
  provisioningEventSignal,
  type Bundle,
  type BundleProcessState,
  type BundleProvisioningInput,
  type BundleProvisioningResult,
  type OperationOutcome,
  type ProvisioningEvent,
} from '../../contract.js';
import { bundleProvisioning as bundleKind } from '../kind.js';
import { initialFollowDetails, type FollowDetails, type Take } from '../../workflow/follow.js';
import { interactive, platform, reads, refused, resumeProcess, type ProcessCarry } from '../../workflow/process.js';
import { operationsOn } from '../../../shared/workflow/actions.js';

interface BundleDetails extends FollowDetails {
  projectId: string;
  key: string;
  name: string;
  region: string;
  processingMode?: string;
  bundleId?: string;
  /** The platform's bundle state, as last seen. */
  platformState?: string;
  subproject?: Bundle['subproject'];
  convApp?: Bundle['convApp'];
  smsApp?: Bundle['smsApp'];
  webhookDeliveryStatuses: Bundle['webhookDeliveryStatuses'];
  errors: NonNullable<Bundle['errors']>;
  stopReason?: string;
}

type Carry = ProcessCarry<BundleProcessState, BundleDetails> & { decisionRead?: boolean };

const FINAL = bundleKind.states.final;
const DELETABLE: readonly BundleProcessState[] = ['IN_PROGRESS', 'ACTIVE', 'FAILED'];
const PLATFORM_STATES: readonly string[] = ['IN_PROGRESS', 'ACTIVE', 'FAILED', 'DELETED'];

const errorText = (errors: BundleDetails['errors']) => errors.map((e) => `${e.resource}: ${e.code}: ${e.message}`).join('; ');

export async function bundleProvisioning(input: BundleProvisioningInput & { carried?: Carry }): Promise<BundleProvisioningResult> {
  const { tracker, follower, operations, edits, stop, state, move, carry, follow, fail } = resumeProcess<BundleProcessState, BundleDetails>(
    'bundle-provisioning',
    input.deleteBundleId ? 'DELETING' : 'CREATING',
    {
      projectId: input.projectId,
      key: input.key,
      name: input.bundle.name,
      region: input.bundle.region,
      ...(input.bundle.convApp ? { processingMode: input.bundle.convApp.processingMode ?? 'DISPATCH' } : {}),
      ...(input.deleteBundleId ? { bundleId: input.deleteBundleId } : {}),
      webhookDeliveryStatuses: [],
      errors: [],
      ...initialFollowDetails(),
    },
    input,
    input.carried,
  );
  const d = tracker.status.details;
  /** A decision (ACTIVE or FAILED) came by webhook: the bundle is read once for the whole picture. */
  let decisionRead = input.carried?.decisionRead ?? false;

  const isFinal = () => FINAL.includes(state());

  function failedWords(errors: BundleDetails['errors']): string {
    return errors.length ? `provisioning failed: ${errorText(errors)}` : 'provisioning failed (the platform gave no reason)';
  }

  function applyBundle(b: Bundle, reason: string): void {
    const take = follower.snapshot(b.updateTime);
    Object.assign(d, {
      bundleId: b.id,
      platformState: b.state,
      subproject: b.subproject,
      ...(b.convApp ? { convApp: b.convApp, processingMode: b.convApp.processingMode } : {}),
      ...(b.smsApp ? { smsApp: b.smsApp } : {}),
      webhookDeliveryStatuses: b.webhookDeliveryStatuses ?? [],
      errors: b.errors ?? [],
    });
    if (!PLATFORM_STATES.includes(b.state) || !take('state') || isFinal() || state() === 'DELETING') return;
    if (b.state === 'FAILED') move('FAILED', `${failedWords(d.errors)} (${reason})`);
    else move(b.state, reason);
    // A read that decides is the whole picture already.
    if (state() === 'ACTIVE' || state() === 'FAILED') decisionRead = true;
  }

  function applyEvent(e: ProvisioningEvent, take: Take): string | void {
    if (isFinal()) return 'the process had ended';
    if (state() === 'DELETING') return 'the bundle is being deleted';
    if (e.trigger !== 'BUNDLE_DONE') return undefined;
    const x = e.details;
    if (!x.state || !PLATFORM_STATES.includes(x.state)) return 'no state';
    if (!take('state')) return;
    d.platformState = x.state;
    if (x.state === 'FAILED') {
      const why = x.errorCode || x.errorReason ? `${x.errorCode ?? 'FAILED'}: ${x.errorReason ?? 'no reason given'}` : 'the platform gave no reason';
      return move('FAILED', `provisioning failed: ${why} (BUNDLE_DONE)`);
    }
    return move(x.state as BundleProcessState, `bundle ${x.state.toLowerCase().replace(/_/g, ' ')} (BUNDLE_DONE)`);
  }

  async function react(): Promise<void> {
    stop.endIfAsked(isFinal);
    // The event says ACTIVE or FAILED; the bundle says the rest (the SMS app's status, every reason, delivery statuses).
    if ((state() === 'ACTIVE' || state() === 'FAILED') && d.bundleId && !decisionRead) {
      decisionRead = true;
      applyBundle(await reads.getBundle({ bundleId: d.bundleId }), 'read from the platform after the decision');
    }
  }

  async function deleteBundle(operation: string, reason?: string): Promise<OperationOutcome> {
    const previous = state();
    move('DELETING', `deleting the bundle (${operation})`);
    try {
      const res = await interactive.deleteBundle({ bundleId: d.bundleId! });
      if (res.bundle) Object.assign(d, { platformState: res.bundle.state });
      else d.platformState = 'DELETED';
      move('DELETED', `${res.deleted ? 'deleted' : 'already deleted'} (${operation}${reason ? `: ${reason}` : ''})`);
      return { accepted: true, state: 'DELETED' };
    } catch (err) {
      move(previous, `the platform refused the delete (${operation})`);
      return refused(state(), err);
    }
  }

  setHandler(provisioningEventSignal, (e) => follower.receive(e));

  operationsOn(operations)(
    deleteUpdate,
    (req) =>
      edits.run(async (): Promise<OperationOutcome> => {
        if (!d.bundleId || !DELETABLE.includes(state()))
          return { accepted: false, state: state(), reason: `a ${state()} bundle process has nothing to delete` };
        return deleteBundle(`through the API, operation ${req.operationId}`, req.reason);
      }),
    () => {
      if (!d.bundleId || !DELETABLE.includes(state()))
        throw new Error(`a ${state()} bundle process cannot delete; delete needs one of ${DELETABLE.join(', ')} and a bundle`);
    },
  );

  stop.handle(operations, { isFinal, state });

  try {
    if (input.deleteBundleId) {
      const res = await platform.deleteBundle({ bundleId: input.deleteBundleId });
      d.platformState = 'DELETED';
      move('DELETED', res.deleted ? 'deleted (a delete after the provisioning had ended)' : 'already deleted');
    } else {
      if (!input.carried) {
        const labels = { ...input.bundle.labels, [BUNDLE_KEY_LABEL]: input.key, [BUNDLE_RUN_LABEL]: workflowInfo().firstExecutionRunId };
        const created = await platform.createBundle({ bundle: { ...input.bundle, labels } });
        applyBundle(created, created.created ? `created in ${created.region}` : `found the bundle this process created (${created.state})`);
        if (!created.created && isFinal()) decisionRead = true;
      }
      await follow({
        isFinal,
        awaiting: () => state() === 'IN_PROGRESS',
        applyEvent,
        react,
        poll: async (reason) => applyBundle(await reads.getBundle({ bundleId: d.bundleId! }), reason),
        continueAsNew: () => continueAsNew<typeof bundleProvisioning>({ ...input, carried: { ...carry(), decisionRead } }),
      });
    }
  } catch (err) {
    fail(err);
  }
  await condition(allHandlersFinished);
  const reason = tracker.status.history.at(-1)?.reason;
  return {
    state: state(),
    region: d.region,
    ...(d.bundleId ? { bundleId: d.bundleId } : {}),
    ...(d.subproject?.id ? { subprojectId: d.subproject.id } : {}),
    ...(d.convApp ? { conversationAppId: d.convApp.id } : {}),
    ...(d.smsApp ? { smsAppId: d.smsApp.id } : {}),
    ...(d.processingMode ? { processingMode: d.processingMode } : {}),
    ...(d.errors.length ? { errors: d.errors } : {}),
    ...(reason ? { reason } : {}),
  };
}
