// The MMS area's state: the account's settings (throughput, postback URL and retry gap, delivery rules,
// faults), saved templates, accepted messages by client-reference, and the counts tests and benchmarks read
// to prove no loss and no duplicate. Postbacks go through the core dispatcher (its retries and faults).
// A persistent sandbox keeps all but the test knobs across a restart (the `kept` parts), final postbacks still due
// included: the platform has no status read for MMS, so the final code is relayflow's only news of it.
import { ulid } from 'ulid';
import type { SandboxContext } from '../../core/context.js';
import { DueJobs } from '../../core/due-jobs.js';
import { KeptValue, type KeptParts } from '../../core/kept.js';
import { KeyedTable } from '../../core/table.js';
import { Timers } from '../../core/timers.js';
import type { Slide } from './validate.js';

export const FINAL_CODES = ['N102', 'E102', 'N202', 'N103'] as const;
export type FinalCode = (typeof FINAL_CODES)[number];
const STATUS: Record<string, string> = { N101: 'Sent', N102: 'Delivered', E102: 'Rejected', N202: 'Delivered as SMS', N103: 'Expired' };

export interface MmsSettings {
  throughputPerSecond: number;
  postbackUrl?: string;
  postbackRetryGapMs: number;
  postbackRetries: number;
  blockedNumbers: string[];
  rules: { suffix: string; code: FinalCode }[];
  deliveryDelayMs: number;
  sendFaults: { acceptThenDelayMs: number; count: number };
}

const defaults = (): MmsSettings => ({
  throughputPerSecond: 50,
  postbackRetryGapMs: 300_000,
  postbackRetries: 5,
  blockedNumbers: [],
  rules: [],
  deliveryDelayMs: 50,
  sendFaults: { acceptThenDelayMs: 0, count: 0 },
});

export interface AcceptedMms {
  trackingId: string;
  to: string;
  clientReference?: string;
  mmsId?: string;
  fallbackDisabled: boolean;
  at: string;
}

type SavedTemplate = { serviceId: string; slides: Slide[]; fallbackDisabled: boolean };
/** A final postback still to send (a due job's data). */
type PendingFinal = { msg: AcceptedMms; code: FinalCode };
type Stats = { accepted: number; duplicateRecipients: number; duplicateSamples: string[]; refusedE113: number; requests: number; saved: number };
const noStats = (): Stats => ({ accepted: 0, duplicateRecipients: 0, duplicateSamples: [], refusedE113: 0, requests: 0, saved: 0 });

export class MmsState {
  /** The run's test knobs, but for the postback URL (kept: a dashboard setting). */
  settings = defaults();
  readonly templates = new KeyedTable<SavedTemplate>();
  private readonly byReference = new KeyedTable<AcceptedMms[]>();
  private readonly counts = new KeyedTable<number>();
  private readonly statsValue = new KeptValue(noStats);
  /** Not kept: the timers of the final postbacks, which `jobs` reschedules after a restore. */
  private readonly timers = new Timers();
  private readonly jobs = new DueJobs(this.timers);

  constructor(private readonly ctx: SandboxContext) {
    this.jobs.handle<PendingFinal>('final', ({ msg, code }) => this.post(msg, code));
  }

  get stats(): Stats {
    return this.statsValue.value;
  }

  /** What a restart keeps: the postback URL, templates, messages, counts and final postbacks still due. */
  get kept(): KeptParts {
    return {
      postbackUrl: {
        save: () => this.settings.postbackUrl ?? null,
        load: (url) => {
          if (typeof url === 'string') this.settings.postbackUrl = url;
        },
      },
      templates: this.templates,
      byReference: this.byReference,
      counts: this.counts,
      stats: this.statsValue,
      jobs: this.jobs,
    };
  }

  accept(m: Omit<AcceptedMms, 'trackingId' | 'at'>): AcceptedMms {
    const msg: AcceptedMms = { ...m, trackingId: ulid(), at: new Date().toISOString() };
    this.stats.accepted++;
    const n = (this.counts.get(m.to) ?? 0) + 1;
    this.counts.set(m.to, n);
    if (n === 2) {
      this.stats.duplicateRecipients++;
      if (this.stats.duplicateSamples.length < 20) this.stats.duplicateSamples.push(m.to);
    }
    if (m.clientReference) this.byReference.set(m.clientReference, [...(this.byReference.get(m.clientReference) ?? []), msg]);
    this.postbacks(msg);
    return msg;
  }

  /** N101 at once, then the final code after the delivery delay (the first rule whose suffix ends `to`). */
  private postbacks(msg: AcceptedMms): void {
    const rule = this.settings.rules.find((r) => msg.to.endsWith(r.suffix));
    let code: FinalCode = rule?.code ?? 'N102';
    if (code === 'N202' && msg.fallbackDisabled) code = 'E102';
    this.post(msg, 'N101');
    this.jobs.after('final', this.settings.deliveryDelayMs, { msg, code } satisfies PendingFinal);
  }

  private post(msg: AcceptedMms, code: string): void {
    const url = this.settings.postbackUrl;
    if (!url) return;
    const body = {
      origin: 'MMS_MT',
      code,
      status: STATUS[code] ?? code,
      'tracking-id': msg.trackingId,
      to: msg.to,
      'operator-id': 1,
      timestamp: new Date().toISOString(),
      ...(msg.clientReference ? { 'client-reference': msg.clientReference } : {}),
      ...(code === 'E102' ? { 'status-details': 'the handset rejected the content' } : {}),
    };
    void this.ctx.callbacks.dispatch({
      area: 'mms',
      url,
      body,
      timeoutMs: 10_000,
      retrySchedule: Array.from({ length: this.settings.postbackRetries }, () => this.settings.postbackRetryGapMs),
    });
  }

  messages(reference: string): AcceptedMms[] {
    return this.byReference.get(reference) ?? [];
  }

  recipients(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  view() {
    return { ...this.stats, distinctRecipients: this.counts.size, duplicateSamples: [...this.stats.duplicateSamples] };
  }

  /** On close: no postback leaves any more; the pending ones stay recorded for the final save. */
  close(): void {
    this.timers.close();
  }

  reset(): void {
    this.timers.reset();
    this.jobs.reset();
    this.settings = defaults();
    this.templates.reset();
    this.byReference.reset();
    this.counts.reset();
    this.statsValue.reset();
  }
}
