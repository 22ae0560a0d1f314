// The SMS-pumping guard of one destination prefix (verification-pumping:<task queue>:<prefix>): counts the starts the
// API let through and the correct codes reported, over a sliding window (common/verification-pumping.ts), and blocks
// the prefix when its conversion falls below the floor with enough starts. The API reads the block (a query, cached
// briefly) before every start to the prefix. A block ends when an operator lifts it (an update naming the API key)
// or after a window; every decision is an event in this workflow's history and in its view. Ends after a window
// with no start and no block; continues as new before its history gets long.
import { allHandlersFinished, condition, continueAsNew, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { looksLikePumping, record, totals } from '../../common/verification-pumping.js';
import {
  liftPumpingUpdate,
  pumpingQuery,
  pumpingStartSignal,
  pumpingSuccessSignal,
  type PumpingCount,
  type PumpingDecision,
  type PumpingGuardState,
  type PumpingGuardView,
} from '../../contracts/verification-limits.js';

/** Signals and updates per run; the slots and the block carry over. */
const EVENTS_PER_RUN = 1_000;
const DECISIONS_KEPT = 20;

export async function verificationPumpingGuard(input: PumpingGuardState): Promise<void> {
  let state = input;
  let events = 0;
  let lastActivityAt = Date.now();

  const decide = (d: Omit<PumpingDecision, 'at'>) => {
    state = { ...state, decisions: [{ at: Date.now(), ...d }, ...state.decisions].slice(0, DECISIONS_KEPT) };
  };
  const view = (): PumpingGuardView => ({
    prefix: state.prefix,
    windowMs: state.windowMs,
    thresholds: state.thresholds,
    totals: totals(state.slots, Date.now(), state.windowMs),
    ...(state.blocked ? { blocked: state.blocked } : {}),
    decisions: state.decisions,
  });
  /** A block past its window ends by itself; the counts of before it are out of the window by then. */
  const expire = () => {
    if (state.blocked && Date.now() >= state.blocked.until) {
      const t = totals(state.slots, Date.now(), state.windowMs);
      state = { ...state, blocked: undefined };
      decide({ kind: 'expired', ...t });
    }
  };

  /** At least 1, at most a bound against a client that bypasses the API. */
  const countOf = (c: PumpingCount) => Math.min(10_000, Math.max(1, Math.floor(c.count ?? 1)));
  setHandler(pumpingStartSignal, (c) => {
    events += 1;
    lastActivityAt = Date.now();
    expire();
    state = { ...state, slots: record(state.slots, Date.now(), state.windowMs, 'start', countOf(c)) };
    const t = totals(state.slots, Date.now(), state.windowMs);
    if (!state.blocked && looksLikePumping(t, state.thresholds)) {
      state = { ...state, blocked: { since: Date.now(), until: Date.now() + state.windowMs, ...t } };
      decide({ kind: 'blocked', ...t });
    }
  });
  setHandler(pumpingSuccessSignal, (c) => {
    events += 1;
    lastActivityAt = Date.now();
    state = { ...state, slots: record(state.slots, Date.now(), state.windowMs, 'success', countOf(c)) };
  });
  setHandler(liftPumpingUpdate, ({ actor, note }) => {
    events += 1;
    lastActivityAt = Date.now();
    expire();
    const t = totals(state.slots, Date.now(), state.windowMs);
    // Counting starts afresh: the window that caused the block would block the next start again.
    state = { ...state, blocked: undefined, slots: [] };
    decide({ kind: 'lifted', ...t, ...(actor ? { by: actor } : {}), ...(note ? { note } : {}) });
    return view();
  });
  setHandler(pumpingQuery, view);

  // One timer at a time, re-armed for what is left (as the per-number guard's): a block's end, or the idle end.
  const rolledOver = condition(() => events >= EVENTS_PER_RUN || workflowInfo().continueAsNewSuggested).then(() => true);
  for (;;) {
    const wakeAt = state.blocked ? Math.min(state.blocked.until, lastActivityAt + state.windowMs) : lastActivityAt + state.windowMs;
    const left = Math.max(state.blocked ? state.blocked.until - Date.now() : 0, lastActivityAt + state.windowMs - Date.now());
    if (left <= 0) break;
    if (await Promise.race([rolledOver, sleep(Math.max(1, wakeAt - Date.now())).then(() => false)])) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof verificationPumpingGuard>(state);
    }
    expire();
  }
  await condition(allHandlersFinished);
}
