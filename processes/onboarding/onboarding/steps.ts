// What a child's state means for the onboarding step that runs it, from the child kind's own descriptor: its
// succeeded states end the step; its failed states, and any other end, fail it; anything else is on the way (a
// chat sender's ERROR: the platform retries; an RCS PARTIALLY_LAUNCHED: countries still in review).
import type { ChildOutcome } from './contract.js';
import { findDescriptor } from '../../kinds.js';

/** The outcome of `state` for a child of `kind`; undefined for a kind relayflow does not know. */
export function childOutcome(kind: string, state: string): ChildOutcome | undefined {
  const states = findDescriptor(kind)?.states;
  if (!states) return undefined;
  if (states.succeeded.includes(state)) return 'ok';
  return states.failed.includes(state) || states.final.includes(state) ? 'failed' : 'on-the-way';
}
