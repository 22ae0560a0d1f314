// The frame every provisioning process shares: status tracking that survives continue-as-new, the
// operation memory of API updates, one edit at a time, and the follow loop (events, polls, deadline).
import { allHandlersFinished, condition, ContinueAsNew, isCancellation, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { ProvisioningActivities } from '../contract.js';
import { interactiveActivityOptions, platformActivityOptions, platformLocalActivityOptions } from '../../shared/workflow/activity-options.js';
import { Exclusive } from '../../shared/workflow/exclusive.js';
import { WakeTimer } from '../../shared/workflow/wake-timer.js';
import { rootMessage, failureType } from '../../shared/workflow/failure-text.js';
import { carryTracked, resumeTracked, withResourceIds, type ProcessState } from '../../shared/workflow/process-state.js';
import type { TrackedCarry } from '../../../contracts/process-status.js';
import { stopUpdate, type OperationOutcome, type ProvisioningEvent, type ResourceRef } from '../contract.js';
import { ResourceFollower, type FollowCarry, type FollowDetails, type Take } from './follow.js';
import { operationsOn } from '../../shared/workflow/actions.js';
import { HandledMemory } from '../../shared/workflow/handled-memory.js';
import type { FollowSettings } from '../contract.js';

/** The project the process's resource lives in when it is not the platform project: a customer's subproject. */
let project: string | undefined;

/**
 * Every activity below is called in `projectId` from now on (the process's input names it once). Module state is the
 * run's own: the workflow sandbox loads these modules per workflow.
 */
export function inProject(projectId: string | undefined): void {
  project = projectId;
}

/** The activities with the process's project added to each call's input (ActivityInProject), when it has one. */
function scoped<T extends object>(activities: T): T {
  return new Proxy(activities, {
    get(target, name) {
      const call = Reflect.get(target, name) as (input?: unknown, ...rest: unknown[]) => unknown;
      return (input?: unknown, ...rest: unknown[]) => call(project === undefined ? input : { ...(input as object | undefined), projectId: project }, ...rest);
    },
  });
}

export const platform = scoped(proxyActivities<ProvisioningActivities>(platformActivityOptions));
export const interactive = scoped(proxyActivities<ProvisioningActivities>(interactiveActivityOptions));
/** Reads of the resource: repeating one is harmless, so a local activity (one marker, no task of its own). */
export const reads = scoped(proxyLocalActivities<ProvisioningActivities>(platformLocalActivityOptions));
/** A quick platform read: an attempt lost with a stopped worker is retried after seconds, not the default 30. */
export const quickRead = scoped(proxyActivities<ProvisioningActivities>({ ...platformActivityOptions, startToCloseTimeout: '10 seconds' }));
/** The link to the resource: a store write and a signal, both safe to repeat, so a local activity (one marker, no task of its own). */
const link = proxyLocalActivities<ProvisioningActivities>({ ...platformLocalActivityOptions, startToCloseTimeout: '10 seconds' });

/** The follow loop as a process gives it: its tracker, follower, timer and history limit are the process's own. */
type ProcessFollowLoop<S extends string> = Omit<FollowLoop<S>, 'tracker' | 'follower' | 'timer' | 'wake' | 'historyLimit'> &
  Partial<Pick<FollowLoop<S>, 'wake'>>;

/** Everything a process hands to its next run: its tracked status and operations, and its follower's marks. */
export interface ProcessCarry<S extends string, D> extends TrackedCarry<S, D, OperationOutcome> {
  follow: FollowCarry;
}

/** A provisioning process's frame: what `resumeProcess` hands the workflow. */
export interface ProvisioningProcess<S extends string, D> {
  tracker: ProcessState<S, D>;
  follower: ResourceFollower;
  operations: HandledMemory<OperationOutcome>;
  /** One change to the platform resource at a time. */
  edits: Exclusive;
  stop: StopRequest;
  state(): S;
  /** Moves to `s` unless the process is there already (a repeated platform state adds no history). */
  move(s: S, reason: string): void;
  /** The carry for the next run (the workflow adds its own fields). */
  carry(): ProcessCarry<S, D>;
  /** followUntilFinal with this process's tracker, follower, stop request and history limit. */
  follow(loop: ProcessFollowLoop<S>): Promise<void>;
  /** After `follow` reached the goal: a change that came as it got there is followed to its end as well, until `ended`. */
  followChanges(loop: ProcessFollowLoop<S>, ended: () => boolean): Promise<void>;
  /** endOnError: records why the process ends and rethrows. */
  fail(err: unknown): never;
}

/**
 * What every provisioning process starts with, resumed from a previous run's carry when there is one: its status
 * (trackProcess), the follower of its resource, its memory of operations, its edit lock and its stop request.
 */
export function resumeProcess<S extends string, D extends FollowDetails & { stopReason?: string }>(
  /** Every provisioning process can end STOPPED or FAILED: a state type without them does not compile. */
  kind: 'STOPPED' | 'FAILED' extends S ? string : never,
  initial: S,
  details: D,
  settings: FollowSettings,
  carried?: ProcessCarry<S, D>,
): ProvisioningProcess<S, D> {
  const { tracker, operations } = resumeTracked(kind, initial, details, carried);
  const follower = new ResourceFollower(tracker.status.details, settings, carried?.follow);
  const state = () => tracker.status.state;
  const ending = tracker as unknown as ProcessState<'STOPPED' | 'FAILED', D>; // S includes both (the kind's type says so)
  const stop = new StopRequest(ending);
  const timer = new WakeTimer();
  const follow = (loop: ProcessFollowLoop<S>) =>
    followUntilFinal({ tracker, follower, timer, historyLimit: settings.historyLimit, ...loop, wake: () => stop.requested || (loop.wake?.() ?? false) });
  return {
    tracker,
    follower,
    operations,
    edits: new Exclusive(),
    stop,
    state,
    move: (s, reason) => {
      if (s !== state()) tracker.moveTo(s, reason);
    },
    carry: () => ({ ...carryTracked(tracker, operations), follow: follower.toCarry() }),
    follow,
    followChanges: async (loop, ended) => {
      for (;;) {
        await condition(allHandlersFinished);
        if (ended()) return;
        await follow(loop);
      }
    },
    fail: (err) => endOnError(ending, err),
  };
}

/** One change to the platform resource at a time (an automatic resubmission and an API one never race). */
/**
 * Records why the process ends on an error and rethrows it: a platform refusal (a failed activity) fails
 * the execution, so the same business key may be started again; a child's failure names the resources it
 * made, for its parent. Continue-as-new passes through.
 */
function endOnError(tracker: ProcessState<'FAILED' | 'STOPPED', object>, err: unknown): never {
  if (err instanceof ContinueAsNew) throw err;
  if (isCancellation(err)) tracker.moveTo('STOPPED', 'the process was cancelled');
  else tracker.moveTo('FAILED', rootMessage(err));
  throw withResourceIds(err, tracker.status.details);
}

/** A refused operation, in the words of the platform's answer. */
export function refused(state: string, err: unknown): OperationOutcome {
  const errorType = failureType(err);
  return { accepted: false, state, reason: rootMessage(err), ...(errorType ? { errorType } : {}) };
}

/**
 * Links the process to a resource it adopted without creating it (a CHATA business account): the webhook intake
 * signals it directly from then on, and what the resource's inbox got before is forwarded to it. A resource the
 * process creates is linked by its create activity (processes/provisioning/activities/resource-link.ts). Repeating is harmless.
 */
export async function attachToResource(resource: ResourceRef): Promise<void> {
  await link.linkResource({ resource, processId: workflowInfo().workflowId });
}

interface FollowLoop<S extends string> {
  tracker: ProcessState<S, FollowDetails>;
  follower: ResourceFollower;
  /** The process's one wake-up timer, kept across waits (and across follow calls). */
  timer: WakeTimer;
  isFinal(): boolean;
  /** A platform decision is awaited (the overdue deadline runs). */
  awaiting(): boolean;
  /** Other reasons to wake up: a stop, work an update left for the loop. */
  wake(): boolean;
  applyEvent(e: ProvisioningEvent, take: Take): string | void;
  /** Reads the resource and applies it (the polling fallback, and after events without a sequence). */
  poll(reason: string): Promise<void>;
  /** Follow-up work after every change (automatic resubmission, test numbers, final decisions). */
  react(): Promise<void>;
  /** A deadline of the process's own (ms since the epoch) its react acts on: the wait also ends then (a durable timer). */
  wakeAt?(): number | undefined;
  historyLimit?: number;
  /** Hands the state to a new run; never returns. */
  continueAsNew(): Promise<never>;
}

/** Runs until the process is final: events as they come, a poll when none came for a while, the deadline. */
async function followUntilFinal<S extends string>(loop: FollowLoop<S>): Promise<void> {
  const { tracker, follower } = loop;
  for (;;) {
    follower.drain((e, take) => loop.applyEvent(e, take));
    // Only events without a sequence set this, and no history from before them holds one: replay is unchanged.
    const hinted = follower.readDue();
    if (hinted && !loop.isFinal()) {
      await loop.poll(`read from the platform after ${hinted.join(', ')} (an event without a sequence)`);
      follower.hintRead();
    }
    await loop.react();
    if (loop.isFinal()) return;
    const overdue = follower.trackReview(loop.awaiting());
    if (overdue) tracker.moveTo(tracker.status.state, overdue);
    const info = workflowInfo();
    if (info.continueAsNewSuggested || (loop.historyLimit !== undefined && info.historyLength >= loop.historyLimit)) {
      await condition(allHandlersFinished);
      if (!follower.hasQueued()) await loop.continueAsNew();
      continue;
    }
    if (follower.pollDue()) {
      await loop.poll('read from the platform (no webhook in time)');
      follower.polled();
      continue;
    }
    // An update (resubmit, relaunch) changing the state starts a new review round: wake for it too. While a decision is
    // awaited, the events of a review come in bursts and the process ends soon after: one timer serves the waits.
    const waitingIn = tracker.status.state;
    const own = loop.wakeAt?.();
    const timeoutMs = own === undefined ? follower.msUntilDue() : Math.max(1, Math.min(follower.msUntilDue(), own - Date.now()));
    await loop.timer.wait(() => follower.hasQueued() || loop.wake() || tracker.status.state !== waitingIn, timeoutMs, loop.awaiting());
  }
}

/**
 * The "stop watching" request every provisioning process takes the same way: `handle` installs its update (refused
 * once the process has ended, otherwise the reason goes to the details), `requested` wakes the process's loop, and
 * `endIfAsked` in the loop's react ends the process as STOPPED.
 */
class StopRequest {
  requested = false;

  constructor(private readonly tracker: { readonly status: { details: { stopReason?: string } }; moveTo(state: 'STOPPED', reason: string): void }) {}

  handle(operations: HandledMemory<OperationOutcome>, process: { isFinal(): boolean; state(): string }): void {
    operationsOn(operations)(stopUpdate, (req): OperationOutcome => {
      if (process.isFinal()) return { accepted: false, state: process.state(), reason: `the process has already ended (${process.state()})` };
      this.requested = true;
      this.tracker.status.details.stopReason = req.reason ? `stopped through the API: ${req.reason}` : 'stopped through the API';
      return { accepted: true, state: 'STOPPED' };
    });
  }

  /** A stop asked ends the process as STOPPED, unless it has `ended` already. */
  endIfAsked(ended: () => boolean): void {
    if (this.requested && !ended()) this.tracker.moveTo('STOPPED', this.tracker.status.details.stopReason ?? 'stopped through the API');
  }
}
