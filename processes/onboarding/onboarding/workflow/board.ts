// The onboarding's steps as one board: their plans, their views (what the API shows), which children are
// running, the order they started in (compensation runs it backwards), and a version that wakes the loop.
import type { ProcessState } from '../../../shared/workflow/process-state.js';
import type { OnboardingDetails, OnboardingState, StepPlan, StepState, StepView } from '../contract.js';

export class Board {
  readonly plans = new Map<string, StepPlan>();
  /** Steps whose child process runs now. */
  readonly open = new Set<string>();
  readonly startOrder: string[] = [];
  /** Bumped on every change: the loop waits for it to move. */
  version = 0;

  constructor(
    readonly tracker: ProcessState<OnboardingState, OnboardingDetails>,
    steps: StepPlan[],
  ) {
    this.add(steps);
  }

  get views(): StepView[] {
    return this.tracker.status.details.steps;
  }

  add(steps: StepPlan[]): void {
    for (const p of steps) {
      this.plans.set(p.name, p);
      this.views.push({
        name: p.name,
        kind: p.kind,
        state: 'PENDING',
        after: p.after.map((d) => d.step),
        ...(p.process ? { processId: p.process.processId } : {}),
        resource: {},
        attempts: 0,
      });
    }
    this.version += 1;
  }

  view(name: string): StepView | undefined {
    return this.views.find((v) => v.name === name);
  }

  plan(name: string): StepPlan {
    return this.plans.get(name)!;
  }

  /**
   * Moves a step; the onboarding's history records it (its own state unchanged), so the timeline tells it. No
   * last-change memo: the process list dates and explains changes of the onboarding's own state.
   */
  set(v: StepView, state: StepState, reason: string): void {
    if (v.state === state && v.reason === reason) return;
    v.state = state;
    v.reason = reason;
    this.version += 1;
    this.tracker.moveTo(this.tracker.status.state, `step ${v.name}: ${state}, ${reason}`, { memo: false });
  }

  touch(): void {
    this.version += 1;
  }
}
