// One long-lived guard per phone number (keyed by a hash, never the number): at most N verifications per
// window across all processes, and the recent verifications of the number for look-ups by identity.
import { allHandlersFinished, condition, continueAsNew, patched, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import { admitUpdate, recentQuery, type NumberGuardInput } from '../../contracts/verification.js';

/** Continue-as-new well before the history gets long; the admissions carry over. */
const UPDATES_PER_RUN = 500;
/**
 * One idle timer per window, never cancelled: before it, each admission cancelled the idle timer and started
 * another, and whether the cancel or the admission's answer came first depended on the workflow interceptors'
 * awaits (a replay with other interceptors failed). Runs started before it keep the old loop.
 */
export const NUMBER_GUARD_ONE_TIMER_PATCH = 'number-guard-one-timer';

export async function numberGuard(input: NumberGuardInput): Promise<void> {
  let admissions = input.admissions;
  let keepMs = input.keepMs;
  let updates = 0;
  let changed = false;
  let lastUpdateAt = Date.now();
  const oneTimer = patched(NUMBER_GUARD_ONE_TIMER_PATCH);

  setHandler(admitUpdate, ({ processId, methods, limit, windowMs }) => {
    updates += 1;
    changed = true;
    lastUpdateAt = Date.now();
    keepMs = Math.max(keepMs, windowMs);
    const now = Date.now();
    const inWindow = admissions.filter((a) => a.at > now - windowMs);
    if (admissions.some((a) => a.processId === processId)) return { admitted: true, count: inWindow.length };
    if (inWindow.length >= limit) {
      const oldest = Math.min(...inWindow.map((a) => a.at));
      return { admitted: false, count: inWindow.length, retryAfterMs: Math.max(1, oldest + windowMs - now) };
    }
    admissions = [...admissions.filter((a) => a.at > now - keepMs), { processId, at: now, methods }];
    return { admitted: true, count: inWindow.length + 1 };
  });
  setHandler(recentQuery, () => admissions);

  const rollOver = () => updates >= UPDATES_PER_RUN || workflowInfo().continueAsNewSuggested;
  const carry = async () => {
    await condition(allHandlersFinished);
    await continueAsNew<typeof numberGuard>({ admissions, keepMs });
  };
  if (oneTimer) {
    // An admission only moves lastUpdateAt: the timer, when it fires, re-arms for what is left of the window.
    const rolledOver = condition(rollOver).then(() => true);
    for (let idleLeft = lastUpdateAt + keepMs - Date.now(); idleLeft > 0; idleLeft = lastUpdateAt + keepMs - Date.now()) {
      if (await Promise.race([rolledOver, sleep(idleLeft).then(() => false)])) await carry();
    }
  } else {
    for (;;) {
      changed = false;
      const woke = await condition(() => changed || rollOver(), keepMs);
      if (rollOver()) await carry();
      if (!woke) break; // idle for a whole window: nothing left to guard
    }
  }
  await condition(allHandlersFinished);
}
