// Which processes a person should look at first, in a list: those waiting on a person (nothing moves until someone
// acts) and those that failed. What each state means is the kind's own descriptor's (processes/<family>/<kind>/kind.ts).
import { DESCRIPTORS, type ProcessKind } from '../../processes/kinds.js';

export type Attention = 'waiting-on-person' | 'failed';

const byKind = (pick: (s: (typeof DESCRIPTORS)[number]['states']) => readonly string[]) =>
  new Map(DESCRIPTORS.map((d) => [d.kind as string, pick(d.states)] as const).filter(([, states]) => states.length > 0));

/**
 * States in which a process waits on a person: the caller (an onboarding's missing input, a sender ID's
 * attachments or answers the platform holds it for, a sender left as a draft, a template the platform paused)
 * or staff (a paused campaign to resume or cancel).
 */
const WAITING_ON_PERSON = byKind((s) => s.waiting);
/** States that end a process unsuccessfully (a verification's FAIL and DENIED, a platform's REJECTED...). */
const FAILED = byKind((s) => s.failed);
/** Temporal's own ends that are failures, whatever the state said last. */
const FAILED_EXECUTIONS = new Set(['FAILED', 'TIMED_OUT', 'TERMINATED']);

export function attentionOf(kind: string, state: string, executionStatus: string): Attention | undefined {
  if (FAILED_EXECUTIONS.has(executionStatus) || FAILED.get(kind)?.includes(state)) return 'failed';
  if (WAITING_ON_PERSON.get(kind)?.includes(state)) return 'waiting-on-person';
  return undefined;
}

/** The visibility query clauses that select each kind of attention (for counts). */
export function attentionClauses(quote: (v: string) => string, stateAttr: string, kindAttr: string): Record<Attention, string> {
  const per = (states: Map<string, readonly string[]>) =>
    [...states].map(([kind, list]) => `(${kindAttr} = ${quote(kind)} AND ${stateAttr} IN (${list.map(quote).join(', ')}))`).join(' OR ');
  return {
    'waiting-on-person': `ExecutionStatus NOT IN ('Failed', 'TimedOut', 'Terminated') AND (${per(WAITING_ON_PERSON)})`,
    failed: `(ExecutionStatus IN ('Failed', 'TimedOut', 'Terminated') OR ${per(FAILED)})`,
  };
}

/** The states a kind's processes can be in (every kind's when none is given), for counts by state. */
export function knownStates(kind?: ProcessKind): string[] {
  return [...new Set(DESCRIPTORS.filter((d) => !kind || d.kind === kind).flatMap((d) => d.states.all))];
}
