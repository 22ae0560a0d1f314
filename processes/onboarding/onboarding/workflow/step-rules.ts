// The onboarding's rules, free of Temporal: which child states end a step, which steps may start, which
// wait, which are blocked or skipped by the steps they need. Pure, so the unit tests cover them directly.
import type { ChildOutcome, StepKind, StepPlan, StepState, StepView } from '../contract.js';
import { findDescriptor } from '../../../kinds.js';
import { childOutcome } from '../steps.js';

/** What a child's state means for its step (processes/onboarding/onboarding/steps.ts); a webhook step has no child. */
export function outcomeOf(kind: StepKind, childState: string): ChildOutcome {
  return childOutcome(kind, childState) ?? 'on-the-way';
}

/** The request a failed step's child takes in place (it is still running, waiting for a fix): its descriptor's. */
export function inPlaceRetry(kind: StepKind, childState: string | undefined): 'resubmit' | 'relaunch' | undefined {
  const retry = findDescriptor(kind)?.retryInPlace;
  return retry && childState !== undefined && retry.from.includes(childState) ? retry.update : undefined;
}

/**
 * Moves PENDING and BLOCKED steps by the steps they need, until nothing changes (a skip cascades through
 * hard dependencies). Returns the steps that may start now. A soft dependency that was skipped counts as
 * met; a hard one skips the step too. A failed or blocked dependency blocks it.
 */
export function settleDependencies(views: StepView[], plans: ReadonlyMap<string, StepPlan>): StepView[] {
  const byName = new Map(views.map((v) => [v.name, v]));
  for (let changed = true; changed;) {
    changed = false;
    for (const v of views) {
      if (v.state !== 'PENDING' && v.state !== 'BLOCKED') continue;
      const next = judge(plans.get(v.name)!, byName);
      if (next && (next.state !== v.state || next.reason !== v.reason)) {
        v.state = next.state;
        v.reason = next.reason;
        changed = true;
      }
    }
  }
  return views.filter((v) => v.state === 'PENDING' && plans.get(v.name)!.after.every((d) => met(byName.get(d.step))));
}

const met = (dep: StepView | undefined) => dep === undefined || dep.state === 'SUCCEEDED' || dep.state === 'SKIPPED';

function judge(plan: StepPlan, byName: Map<string, StepView>): { state: StepState; reason: string } | undefined {
  for (const d of plan.after) {
    const dep = byName.get(d.step);
    if (dep?.state === 'SKIPPED' && d.hard) return { state: 'SKIPPED', reason: `skipped: it needs step ${d.step}, which was skipped` };
  }
  for (const d of plan.after) {
    const dep = byName.get(d.step);
    if (dep?.state === 'FAILED') return { state: 'BLOCKED', reason: `waits for step ${d.step}, which failed: retry or skip it` };
    if (dep?.state === 'BLOCKED') return { state: 'BLOCKED', reason: `waits for step ${d.step}, which is blocked` };
  }
  const waiting = plan.after.filter((d) => !met(byName.get(d.step))).map((d) => d.step);
  return { state: 'PENDING', reason: waiting.length ? `waits for ${waiting.join(', ')}` : 'ready to start' };
}

/** Sets `path` (dotted) in a copy of `input`, making objects on the way. */
export function withValue(input: unknown, path: string, value: string): unknown {
  const copy = JSON.parse(JSON.stringify(input)) as Record<string, unknown>; // plain data; no structuredClone in the workflow sandbox
  const keys = path.split('.');
  let at = copy;
  for (const k of keys.slice(0, -1)) {
    if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
  return copy;
}
