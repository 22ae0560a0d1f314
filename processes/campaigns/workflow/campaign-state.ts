// A campaign run's state: its tracked status, the chunks still to send and those running, and whether it is paused
// or being cancelled. Its methods are the pieces the workflow and its operations are made of; only halt waits, so
// the workflow's other awaits (and with them the order of its commands) stay where the workflow function puts them.
import { ApplicationFailure, CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import {
  CAMPAIGN_BILLING_REFUSED,
  CAMPAIGN_HALTED,
  CAMPAIGN_REFUSED,
  type CampaignCarry,
  type CampaignDetails,
  type CampaignInput,
  type CampaignOperationOutcome,
  type CampaignState,
  type ChunkResult,
  type PreparedCampaign,
  type QuietHours,
  type SendWindows,
} from '../contract.js';
import { rootMessage } from '../../shared/workflow/failure-text.js';
import { carryTracked, resumeTracked } from '../../shared/workflow/process-state.js';
import { campaignActivities } from './campaign-activities.js';
import { chunkInput, planCampaign, unpreparedDetails } from './campaign-plan.js';

const KEEP_HISTORY = 100;
/** Why a billing refusal paused the campaign: what to do, not the platform's words (those are in lastError). */
export const BILLING_PAUSE_REASON = "the project's credit limit is reached (BILLING_CREDIT_LIMIT_BREACHED): top up, then resume";

export class CampaignRun {
  readonly control;
  private readonly sends;
  readonly tracker;
  readonly operations;
  readonly details: CampaignDetails;
  /** Chunks not yet sent, in order; a chunk stopped part-way goes back to the front (the store knows its sent rows). */
  private readonly todo: number[];
  readonly running = new Map<number, CancellationScope>();
  paused: boolean;
  /** How many resumes this run took: a chunk remembers the count it was launched under. */
  private resumes = 0;
  /** Why the campaign is cancelled, once a cancel is accepted. */
  cancelReason: string | undefined;
  /** What the loop waits for: a chunk ended, or a pause, resume or cancel. */
  changed = false;
  /** prepareCampaign has answered (or an earlier run's did): the plan and the store's rate are set. */
  isPrepared: boolean;
  /** Every chunk has ended: nothing is left to pause or cancel, only sends in doubt to settle. */
  allSent = false;
  /** Waiting for its start time (SCHEDULED, or PAUSED before it). */
  waitingForStart: boolean;
  /** Quiet hours: rows that wait for their recipient's send window. */
  waiting = 0;

  constructor(private readonly input: CampaignInput) {
    ({ control: this.control, sends: this.sends } = campaignActivities(input.settings));
    const { tracker, operations } = resumeTracked<CampaignState, CampaignDetails, CampaignOperationOutcome>(
      input.kind,
      input.startAt ? 'SCHEDULED' : 'PREPARING',
      unpreparedDetails(input),
      input.carried,
    );
    this.tracker = tracker;
    this.operations = operations;
    this.details = tracker.status.details;
    this.todo = [...(input.carried?.todo ?? [])];
    this.paused = this.state === 'PAUSED';
    this.isPrepared = !!input.carried;
    this.waitingForStart = !input.carried && !!input.startAt;
  }

  get campaignId(): string {
    return this.input.campaignId;
  }

  get state(): CampaignState {
    return this.tracker.status.state;
  }

  get chunksLeft(): number {
    return this.todo.length;
  }

  prepared(prepared: PreparedCampaign): void {
    planCampaign(this.details, this.input, prepared);
    this.isPrepared = true;
  }

  /** The start time came (or a cancel): PREPARING unless paused or cancelled meanwhile. */
  started(): void {
    this.waitingForStart = false;
    if (!this.paused && !this.cancelReason && this.state === 'SCHEDULED') this.tracker.moveTo('PREPARING', 'its start time came');
  }

  /** Every chunk is to send; SENDING unless a pause or cancel came during the preparation. */
  sendAll(): void {
    const d = this.details;
    this.todo.push(...Array.from({ length: d.chunksTotal }, (_, i) => i));
    if (!this.paused && !this.cancelReason)
      this.tracker.moveTo('SENDING', `${d.end} recipients in ${d.chunksTotal} chunks of ${d.chunkSize}, ${d.windowSize} at a time, ${d.rate}/s`);
  }

  /** Quiet hours looked at: the chunks that hold sendable rows are to send (once each); SENDING, or waiting for a window. */
  windows(w: SendWindows, quiet: QuietHours): void {
    this.waiting = w.waiting;
    for (const chunk of w.chunks) if (!this.running.has(chunk) && !this.todo.includes(chunk)) this.todo.push(chunk);
    if (this.paused || this.cancelReason) return;
    if (this.todo.length || this.running.size) {
      if (this.state !== 'SENDING') {
        const waits = w.waiting ? `; ${w.waiting} wait for their window` : '';
        this.tracker.moveTo('SENDING', `recipients inside their send window (quiet hours ${quiet.from}-${quiet.to} local time)${waits}`);
      }
    } else if (w.waiting && this.state !== 'WAITING_FOR_WINDOW') {
      const until = w.nextChangeAt ? ` until ${w.nextChangeAt}` : '';
      this.tracker.moveTo('WAITING_FOR_WINDOW', `${w.waiting} recipients wait for their window (quiet hours ${quiet.from}-${quiet.to} local time)${until}`);
    }
  }

  pause(reason: string, by: 'caller' | 'platform'): void {
    this.paused = true;
    this.details.pausedBy = by;
    this.tracker.moveTo('PAUSED', reason);
    this.changed = true;
  }

  resumed(): void {
    this.paused = false;
    this.resumes++;
    delete this.details.pausedBy;
    this.tracker.moveTo(this.waitingForStart ? 'SCHEDULED' : this.details.end ? 'SENDING' : 'PREPARING', 'resumed through the API');
    this.changed = true;
  }

  cancel(reason: string): void {
    this.cancelReason = reason;
    this.changed = true;
  }

  /**
   * Stops sending: the halt flag in the store stops running chunks within a second (they read it with the
   * rate; a cancellation alone reaches them only with their next recorded heartbeat), then their scopes
   * are cancelled. Resolves once no chunk is running, so a pause that answered sends nothing more.
   */
  async halt(kind: 'paused' | 'cancelled'): Promise<void> {
    await this.control.setCampaignHalt({ campaignId: this.campaignId, halt: kind });
    for (const scope of this.running.values()) scope.cancel();
    await condition(() => this.running.size === 0);
  }

  /** Time to continue as new: Temporal suggests it, or the history reached the settings' limit. */
  overdue(): boolean {
    const info = workflowInfo();
    const limit = this.input.settings.historyLimit;
    return info.continueAsNewSuggested || (limit !== undefined && info.historyLength >= limit);
  }

  /** Launches chunks until the window is full or none is left. */
  fillWindow(): void {
    while (this.running.size < this.details.windowSize && this.todo.length) this.launch(this.todo.shift()!);
  }

  /** What the next run starts from. */
  carry(): CampaignCarry {
    return { ...carryTracked(this.tracker, this.operations, KEEP_HISTORY), todo: this.todo };
  }

  private launch(chunk: number): void {
    const launchedAt = this.resumes;
    const scope = new CancellationScope();
    this.running.set(chunk, scope);
    scope
      .run(() => this.sends.sendChunk(chunkInput(this.input, this.details, chunk)))
      .then(
        (r: ChunkResult) => this.chunkSent(r),
        (err: unknown) => this.chunkStopped(chunk, err, launchedAt),
      )
      .finally(() => {
        this.running.delete(chunk);
        this.changed = true;
      });
  }

  private chunkSent(r: ChunkResult): void {
    this.details.chunksDone++;
    if (r.throttled) this.details.throttledAttempts += r.throttled;
  }

  /**
   * Cancelled (pause, cancel) or refused (billing included): the chunk's unsent rows are still pending in the store.
   * A refusal from a chunk launched before the last resume is not a new one: the caller resumed after that cause, and
   * the rows go out again with the next chunks (which pause the campaign if the platform still refuses).
   */
  private chunkStopped(chunk: number, err: unknown, launchedAt: number): void {
    this.todo.unshift(chunk);
    const type = failureTypeOf(err);
    if (isCancellation(err) || type === CAMPAIGN_HALTED) return;
    this.details.lastError = rootMessage(err);
    if ((type === CAMPAIGN_REFUSED || type === CAMPAIGN_BILLING_REFUSED) && !this.paused && !this.cancelReason && launchedAt === this.resumes) {
      // A billing block is the project's credit, not relayflow's access: its reason says to top up (the rows not sent stay pending).
      const reason =
        type === CAMPAIGN_BILLING_REFUSED ? BILLING_PAUSE_REASON : `the platform refused the campaign: ${this.details.lastError}. Fix the cause, then resume.`;
      this.pause(reason, 'platform');
      void this.halt('paused');
    }
  }
}

function failureTypeOf(err: unknown): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && e.type) return e.type;
  }
  return undefined;
}
