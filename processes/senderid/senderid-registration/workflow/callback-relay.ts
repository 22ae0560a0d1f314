// The sender ID callback relay, one per registration (`senderid-callbacks:<projectId>:<registrationId>`). The
// intake signals-with-start it with every signed callback and answers 200 at once (the spec's "answer 200 OK, do
// the business logic asynchronously"); from here on the callback is in Temporal. The relay reads whose
// registration it is and hands the hints on (relaySenderIdCallbacks), retrying while the platform's read fails,
// then ends once nothing is queued. A callback that arrives as a run completes fails the completion and is
// replayed into it; one after the run closed starts a fresh relay: none is lost. Duplicates are the process's
// to drop (by eventId), so its counts stay as the platform sent them.
import { condition, log, setHandler } from '@temporalio/workflow';
import type { RelayCallbacksResult } from '../activity-contract.js';
import { senderIdCallbackSignal, type SenderIdCallbackHint, type SenderIdCallbackRelayInput } from '../contract.js';
import { rootMessage } from '../../../shared/workflow/failure-text.js';
import { platform } from './registration-calls.js';

/** How long a run started without a hint (not by the intake) waits for one before it ends. */
const FIRST_HINT_WAIT = '1 minute';

/** Per batch of hints: where they went, or `not-relayed` (a failure the platform called final). */
type RelayOutcome = RelayCallbacksResult['outcome'] | 'not-relayed';

export async function senderIdCallbackRelay(input: SenderIdCallbackRelayInput): Promise<{ relayed: number; outcomes: RelayOutcome[] }> {
  const queued: SenderIdCallbackHint[] = [];
  setHandler(senderIdCallbackSignal, (hint) => void queued.push(hint));
  // Always this wait: when the start's signal reaches the handler depends on the interceptors' awaits, and the
  // commands must not (a check first would start the timer under some interceptor sets and not others).
  await condition(() => queued.length > 0, FIRST_HINT_WAIT);
  let relayed = 0;
  const outcomes: RelayOutcome[] = [];
  while (queued.length > 0) {
    const hints = queued.splice(0);
    const eventIds = hints.map((h) => h.eventId);
    try {
      const r = await platform.relaySenderIdCallbacks({ relay: input, hints });
      outcomes.push(r.outcome);
      relayed += hints.length;
      log.info('sender ID callbacks relayed', { registrationId: input.registrationId, eventIds, outcome: r.outcome, processId: r.processId });
    } catch (err) {
      // Only a failure the platform calls final (auth, a refused read) gets here; the process's periodic read
      // still ends it right, so the relay goes on with what came next.
      outcomes.push('not-relayed');
      log.error('sender ID callbacks not relayed', { registrationId: input.registrationId, eventIds, error: rootMessage(err) });
    }
  }
  return { relayed, outcomes };
}
