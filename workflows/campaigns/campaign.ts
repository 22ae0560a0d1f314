// A batch send (areas C and D): a sliding window of chunk activities over the recipient rows in the store.
// The chunks send their rows in the campaign's one schedule (a token bucket in the store that all of them
// share) on the send task queue, heartbeating; the store, not this workflow, knows which recipient was sent,
// so a chunk that is retried, cancelled (pause) or rerun after continue-as-new sends only what is still pending.
// The history holds a few events per chunk, never per message, and continue-as-new keeps it bounded whatever
// the campaign's size.
import {
  ActivityCancellationType,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  ContinueAsNew,
  isCancellation,
  patched,
  proxyActivities,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import {
  CAMPAIGN_HALTED,
  CAMPAIGN_REFUSED,
  cancelCampaignUpdate,
  FINAL_CAMPAIGN_STATES,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  setCampaignRateUpdate,
  type CampaignActivities,
  type CampaignCarry,
  type CampaignDetails,
  type CampaignInput,
  type CampaignOperationOutcome,
  type CampaignResult,
  type CampaignState,
  type ChunkResult,
} from '../../contracts/campaigns.js';
import { operationsOn } from '../shared/actions.js';
import { rootMessage } from '../shared/failure-text.js';
import { carryTracked, resumeTracked } from '../shared/process-state.js';

const KEEP_HISTORY = 100;
/** A chunk sends at most this many messages per second; faster campaigns run more chunks at once. */
const MAX_CHUNK_RATE = 100;
const MAX_WINDOW = 8;
/** How often SETTLING looks again for postbacks that confirm in-doubt sends. */
const SETTLE_CHECK_MS = 30_000;

export const windowSizeFor = (rate: number) => Math.min(MAX_WINDOW, Math.max(2, Math.ceil(rate / MAX_CHUNK_RATE)));
/**
 * Rows per chunk: `chunkSize`, or for a fast campaign about `chunkSeconds` of sending at the chunk's share of the
 * rate, evened out so the chunks fill whole windows (a last window of one chunk would send at 1/window of the rate).
 */
export function chunkRowsFor(rows: number, chunkSize: number, chunkSeconds: number, rate: number, windowSize: number): number {
  const target = Math.ceil((rate / windowSize) * chunkSeconds);
  if (target <= chunkSize) return chunkSize;
  const windows = Math.ceil(rows / (target * windowSize));
  return Math.max(chunkSize, Math.ceil(rows / (windows * windowSize)));
}

/** The cancel path's last activity comes after the cancel's answer (see where it is used). */
export const CAMPAIGN_AFTER_HANDLERS_PATCH = 'campaign-after-handlers';

export async function campaign(input: CampaignInput): Promise<CampaignResult> {
  const s = input.settings;
  const control = proxyActivities<CampaignActivities>({
    taskQueue: s.controlTaskQueue ?? s.sendTaskQueue,
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
  });
  const sendOptions: ActivityOptions = {
    taskQueue: s.sendTaskQueue,
    // A chunk takes chunkSize / (rate / window) seconds plus back-off; the heartbeat, not this, detects a dead worker.
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: s.heartbeatTimeoutMs,
    // Pause must not return while a chunk may still send: wait until the activity has stopped.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2, nonRetryableErrorTypes: [CAMPAIGN_REFUSED, CAMPAIGN_HALTED] },
  };
  const sends = proxyActivities<CampaignActivities>(sendOptions);

  const carried = input.carried;
  const { tracker, operations } = resumeTracked<CampaignState, CampaignDetails, CampaignOperationOutcome>(
    input.kind,
    'PREPARING',
    {
      campaignId: input.campaignId,
      rate: 0,
      platformRate: 0,
      end: 0,
      chunkSize: s.chunkSize,
      windowSize: 2,
      chunksTotal: 0,
      chunksDone: 0,
      throttledAttempts: 0,
      retriedAttempts: 0,
    },
    carried,
  );
  const d = tracker.status.details;
  const state = () => tracker.status.state;
  const isFinal = () => FINAL_CAMPAIGN_STATES.includes(state());
  const operation = operationsOn(operations, 'remember');
  const todo: number[] = [...(carried?.todo ?? [])];
  const running = new Map<number, CancellationScope>();
  let paused = state() === 'PAUSED';
  let cancel: string | undefined;
  let changed = false;

  const refuse = (reason: string): CampaignOperationOutcome => ({ accepted: false, state: state(), reason });

  /**
   * Stops sending: the halt flag in the store stops running chunks within a second (they read it with the
   * rate; a cancellation alone reaches them only with their next recorded heartbeat), then their scopes
   * are cancelled. Resolves once no chunk is running, so a pause that answered sends nothing more.
   */
  async function halt(kind: 'paused' | 'cancelled'): Promise<void> {
    await control.setCampaignHalt({ campaignId: input.campaignId, halt: kind });
    for (const scope of running.values()) scope.cancel();
    await condition(() => running.size === 0);
  }

  function pause(reason: string, by: 'caller' | 'platform'): void {
    paused = true;
    d.pausedBy = by;
    tracker.moveTo('PAUSED', reason);
    changed = true;
  }

  operation(pauseCampaignUpdate, async (req) => {
    if (isFinal()) return refuse(`the campaign has ended (${state()})`);
    if (state() === 'SETTLING') return refuse('every message has been sent; the campaign is only waiting for confirmations');
    if (paused) return { accepted: true, state: state() };
    pause(`paused through the API${req.reason ? `: ${req.reason}` : ''}`, 'caller');
    await halt('paused');
    return { accepted: true, state: 'PAUSED' };
  });

  operation(resumeCampaignUpdate, async () => {
    if (isFinal()) return refuse(`the campaign has ended (${state()})`);
    if (!paused) return { accepted: true, state: state() };
    await control.setCampaignHalt({ campaignId: input.campaignId, halt: null });
    paused = false;
    delete d.pausedBy;
    tracker.moveTo(d.end ? 'SENDING' : 'PREPARING', 'resumed through the API');
    changed = true;
    return { accepted: true, state: state() };
  });

  operation(cancelCampaignUpdate, async (req) => {
    if (isFinal()) return refuse(`the campaign has ended (${state()})`);
    if (state() === 'SETTLING') return refuse('every message has been sent; nothing is left to cancel');
    cancel = `cancelled through the API${req.reason ? `: ${req.reason}` : ''}`;
    changed = true;
    await halt('cancelled');
    return { accepted: true, state: 'CANCELLED' };
  });

  operation(setCampaignRateUpdate, async (req) => {
    if (isFinal()) return refuse(`the campaign has ended (${state()})`);
    if (!(req.rate > 0)) return refuse('rate must be above 0');
    const rate = d.platformRate ? Math.min(req.rate, d.platformRate) : req.rate;
    await control.setCampaignRate({ campaignId: input.campaignId, rate });
    d.rate = rate;
    tracker.moveTo(state(), `rate set to ${rate}/s through the API${rate < req.rate ? ` (capped at the platform's ${d.platformRate}/s)` : ''}`);
    return { accepted: true, state: state(), rate };
  });

  function launch(chunk: number): void {
    const from = chunk * d.chunkSize;
    const to = Math.min(d.end, from + d.chunkSize);
    const scope = new CancellationScope();
    running.set(chunk, scope);
    scope
      .run(() =>
        sends.sendChunk({
          campaignId: input.campaignId,
          kind: input.kind,
          from,
          to,
          windowSize: d.windowSize,
          ...(input.conversation ? { conversation: input.conversation } : {}),
          ...(input.mms ? { mms: { ...input.mms, ...(d.savedMmsId ? { savedMmsId: d.savedMmsId } : {}) } } : {}),
        }),
      )
      .then(
        (r: ChunkResult) => {
          d.chunksDone++;
          if (r.throttled) d.throttledAttempts += r.throttled;
        },
        (err: unknown) => {
          // Cancelled (pause, cancel) or refused: the chunk's unsent rows are still pending in the store.
          todo.unshift(chunk);
          if (isCancellation(err) || failureTypeOf(err) === CAMPAIGN_HALTED) return;
          d.lastError = rootMessage(err);
          if (failureTypeOf(err) === CAMPAIGN_REFUSED && !paused && !cancel) {
            pause(`the platform refused the campaign: ${d.lastError}. Fix the cause, then resume.`, 'platform');
            void halt('paused');
          }
        },
      )
      .finally(() => {
        running.delete(chunk);
        changed = true;
      });
  }

  try {
    if (!carried) {
      const prepared = await control.prepareCampaign({
        campaignId: input.campaignId,
        kind: input.kind,
        ...(input.conversation ? { conversation: input.conversation } : {}),
        ...(input.mms ? { mms: input.mms } : {}),
      });
      d.end = prepared.end;
      d.platformRate = prepared.platformRate;
      d.rate = Math.min(input.rate ?? prepared.platformRate, prepared.platformRate);
      d.windowSize = windowSizeFor(d.rate);
      d.chunkSize = chunkRowsFor(prepared.end, s.chunkSize, s.chunkSeconds ?? 0, d.rate, d.windowSize);
      d.chunksTotal = Math.ceil(prepared.end / d.chunkSize);
      d.webhook = prepared.webhook;
      if (prepared.savedMmsId) d.savedMmsId = prepared.savedMmsId;
      await control.setCampaignRate({ campaignId: input.campaignId, rate: d.rate });
      todo.push(...Array.from({ length: d.chunksTotal }, (_, i) => i));
      if (!paused && !cancel)
        tracker.moveTo('SENDING', `${d.end} recipients in ${d.chunksTotal} chunks of ${d.chunkSize}, ${d.windowSize} at a time, ${d.rate}/s`);
    }

    while (!cancel) {
      const info = workflowInfo();
      const continueNow = info.continueAsNewSuggested || (s.historyLimit !== undefined && info.historyLength >= s.historyLimit);
      // Near the history limit no chunk is launched: the window drains, then the run continues as new.
      if (!paused && !continueNow) while (running.size < d.windowSize && todo.length) launch(todo.shift()!);
      if (!running.size) {
        if (!todo.length) break;
        if (continueNow) {
          await condition(allHandlersFinished);
          const carry: CampaignCarry = { ...carryTracked(tracker, operations, KEEP_HISTORY), todo };
          await continueAsNew<typeof campaign>({ ...input, carried: carry });
        }
        if (paused) {
          await condition(() => !paused || !!cancel);
          continue;
        }
      }
      await condition(() => changed);
      changed = false;
    }

    if (cancel) {
      // The cancel's handler wakes when the last chunk ends too: the loop schedules its activity only once the
      // handler has answered, so their order never rests on the interceptors' awaits (patch).
      const afterHandlers = patched(CAMPAIGN_AFTER_HANDLERS_PATCH);
      await condition(() => running.size === 0 && (!afterHandlers || allHandlersFinished()));
      const cancelled = await control.cancelRemainingRecipients({ campaignId: input.campaignId });
      tracker.moveTo('CANCELLED', `${cancel}; ${cancelled} recipients not sent`);
    } else {
      tracker.moveTo('SETTLING', 'every recipient has been sent or refused');
      const deadline = Date.now() + s.inDoubtWaitMs;
      for (;;) {
        const close = Date.now() >= deadline;
        const r = await control.settleCampaign({ campaignId: input.campaignId, close });
        if (!r.unsettled || close) {
          tracker.moveTo(
            'COMPLETED',
            r.closed ? `${r.closed} sends whose answer was lost were not confirmed by a postback: reported unconfirmed, not sent again` : 'every send settled',
          );
          break;
        }
        await sleep(Math.max(1, Math.min(SETTLE_CHECK_MS, deadline - Date.now())));
      }
    }
  } catch (err) {
    if (err instanceof ContinueAsNew) throw err;
    tracker.moveTo('FAILED', rootMessage(err));
    throw err;
  }
  await condition(allHandlersFinished);
  return { state: state(), campaignId: input.campaignId };
}

function failureTypeOf(err: unknown): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
  }
  return undefined;
}
