// One long-lived guard per phone number (keyed by a hash, never the number): at most N verifications per
// window across all processes, and the recent verifications of the number for look-ups by identity.
import { allHandlersFinished, condition, continueAsNew, setHandler, workflowInfo } from '@temporalio/workflow';
import { admitUpdate, recentQuery, type NumberGuardInput } from '../../contracts/verification.js';

/** Continue-as-new well before the history gets long; the admissions carry over. */
const UPDATES_PER_RUN = 500;

export async function numberGuard(input: NumberGuardInput): Promise<void> {
  let admissions = input.admissions;
  let keepMs = input.keepMs;
  let updates = 0;
  let changed = false;

  setHandler(admitUpdate, ({ processId, methods, limit, windowMs }) => {
    updates += 1;
    changed = true;
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

  for (;;) {
    changed = false;
    const woke = await condition(() => changed || updates >= UPDATES_PER_RUN || workflowInfo().continueAsNewSuggested, keepMs);
    if (updates >= UPDATES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof numberGuard>({ admissions, keepMs });
    }
    if (!woke) break; // idle for a whole window: nothing left to guard
  }
  await condition(allHandlersFinished);
}
