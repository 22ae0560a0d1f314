// A batch send (areas C and D): a sliding window of chunk activities over the recipient rows in the store.
// The chunks send their rows in the campaign's one schedule (a token bucket in the store that all of them
// share) on the send task queue, heartbeating; the store, not this workflow, knows which recipient was sent,
// so a chunk that is retried, cancelled (pause) or rerun after continue-as-new sends only what is still pending.
// The history holds a few events per chunk, never per message, and continue-as-new keeps it bounded whatever
// the campaign's size. The run's state and its pieces are in campaign-state.ts, its API operations in
// campaign-operations.ts; every await stays here, in the order the recorded histories expect.
import { allHandlersFinished, condition, continueAsNew, ContinueAsNew, sleep } from '@temporalio/workflow';
import type { CampaignInput, CampaignResult, QuietHours } from '../contract.js';
import { rootMessage } from '../../shared/workflow/failure-text.js';
import { handleCampaignOperations } from './campaign-operations.js';
import { CampaignRun } from './campaign-state.js';

export { chunkRowsFor, windowSizeFor } from './chunks.js';

/** How often SETTLING looks again for postbacks that confirm in-doubt sends. */
const SETTLE_CHECK_MS = 30_000;

export async function campaign(input: CampaignInput): Promise<CampaignResult> {
  const run = new CampaignRun(input);
  handleCampaignOperations(run);
  const { control, tracker } = run;
  const s = input.settings;
  const quiet = input.quietHours;
  try {
    // Scheduled: nothing is prepared before the start time (the platform's limit and rate are read then). A cancel
    // ends the wait; a pause lets the time pass and holds the campaign once it is prepared.
    let cancelledBeforeStart = false;
    if (run.waitingForStart) {
      const wait = Date.parse(input.startAt!) - Date.now();
      if (wait > 0) await condition(() => !!run.cancelReason, wait);
      cancelledBeforeStart = !!run.cancelReason;
      run.started();
    }

    // Prepare: the platform's limit, and the rate set in the store (both in one activity); the rows are cut into chunks.
    if (!input.carried && !cancelledBeforeStart) {
      run.prepared(
        await control.prepareCampaign({
          campaignId: input.campaignId,
          kind: input.kind,
          ...(input.conversation ? { conversation: input.conversation } : {}),
          ...(input.mms ? { mms: input.mms } : {}),
          ...(input.rate ? { rate: input.rate } : {}),
        }),
      );
      if (!quiet) run.sendAll();
    }

    // Quiet hours: the store keeps rows outside their recipient's window waiting; the chunks that hold sendable rows
    // are sent, and the windows are looked at again when one opens or closes next.
    let nextWindowAt: number | undefined;
    const lookAtWindows = async (q: QuietHours) => {
      const w = await control.openSendWindows({ campaignId: input.campaignId, quietHours: q, chunkSize: run.details.chunkSize });
      run.windows(w, q);
      nextWindowAt = w.nextChangeAt ? Date.parse(w.nextChangeAt) : undefined;
    };
    if (quiet && !cancelledBeforeStart && !run.cancelReason) await lookAtWindows(quiet);

    // Send: keep the window of chunks full until none is left, paused or not, continuing as new when overdue.
    while (!run.cancelReason) {
      const continueNow = run.overdue();
      // Near the history limit no chunk is launched: the window drains, then the run continues as new.
      if (!run.paused && !continueNow) run.fillWindow();
      if (!run.running.size) {
        if (!run.chunksLeft) {
          if (!quiet) break;
          if (!run.paused && !continueNow) {
            // Rows a chunk passed by while they waited: sent now if their window is open, else waited for.
            await lookAtWindows(quiet);
            if (run.chunksLeft) continue;
            if (!run.waiting) break;
          }
        }
        if (continueNow) {
          await condition(allHandlersFinished);
          await continueAsNew<typeof campaign>({ ...input, carried: run.carry() });
        }
        if (run.paused) {
          await condition(() => !run.paused || !!run.cancelReason);
          continue;
        }
      }
      if (quiet && nextWindowAt !== undefined) {
        const woke = await condition(() => run.changed, Math.max(1, nextWindowAt - Date.now()));
        if (!woke && !run.paused && !run.cancelReason) await lookAtWindows(quiet);
      } else await condition(() => run.changed);
      run.changed = false;
    }

    // Finish: cancel what was not sent, or wait for the in-doubt sends to settle.
    if (run.cancelReason) {
      // The cancel's handler wakes when the last chunk ends too: the loop schedules its activity only once the
      // handler has answered, so their order never rests on the interceptors' awaits.
      await condition(() => run.running.size === 0 && allHandlersFinished());
      const cancelled = await control.cancelRemainingRecipients({ campaignId: input.campaignId });
      tracker.moveTo('CANCELLED', `${run.cancelReason}; ${cancelled} recipients not sent`);
    } else {
      // SETTLING is listed only when the first check finds sends to wait for: when none is in doubt (the usual
      // case) the campaign goes from SENDING to COMPLETED, one search attribute upsert and one memo fewer.
      run.allSent = true;
      const sent = 'every recipient has been sent or refused';
      const deadline = Date.now() + s.inDoubtWaitMs;
      for (;;) {
        const close = Date.now() >= deadline;
        const r = await control.settleCampaign({ campaignId: input.campaignId, close });
        if (!r.unsettled || close) {
          const settled = r.closed
            ? `${r.closed} sends whose answer was lost were not confirmed by a postback: reported unconfirmed, not sent again`
            : 'every send settled';
          tracker.moveTo('COMPLETED', run.state === 'SETTLING' ? settled : `${sent}; ${settled}`);
          break;
        }
        if (run.state !== 'SETTLING') tracker.moveTo('SETTLING', `${sent}; ${r.unsettled} sends whose answer was lost wait for a postback`);
        await sleep(Math.max(1, Math.min(SETTLE_CHECK_MS, deadline - Date.now())));
      }
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    tracker.moveTo('FAILED', rootMessage(err));
    throw err;
  }
  await condition(allHandlersFinished);
  return { state: run.state, campaignId: input.campaignId };
}
