// The MMS area's state: the account's settings (throughput, postback URL and retry gap, delivery rules,
// faults), saved templates, accepted messages by client-reference, and the counts tests and benchmarks read
// to prove no loss and no duplicate. Postbacks go through the core dispatcher (its retries and faults).
// A persistent sandbox keeps all but the test knobs across a restart (persist/restore), final postbacks still due
// included: the platform has no status read for MMS, so the final code is relayflow's only news of it.
import { ulid } from 'ulid';
import type { SandboxContext } from '../../core/context.js';
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
/** A final postback still to send, at epoch ms dueAt. */
type PendingFinal = { msg: AcceptedMms; code: FinalCode; dueAt: number };
type Stats = { accepted: number; duplicateRecipients: number; duplicateSamples: string[]; refusedE113: number; requests: number; saved: number };

export interface SavedMmsState {
  postbackUrl: string | null;
  templates: Record<string, SavedTemplate>;
  byReference: Record<string, AcceptedMms[]>;
  counts: Record<string, number>;
  stats: Stats;
  finals: PendingFinal[];
}

export class MmsState {
  settings = defaults();
  readonly templates = new Map<string, SavedTemplate>();
  private byReference = new Map<string, AcceptedMms[]>();
  private counts = new Map<string, number>();
  private finals = new Map<NodeJS.Timeout, PendingFinal>();
  stats: Stats = { accepted: 0, duplicateRecipients: 0, duplicateSamples: [], refusedE113: 0, requests: 0, saved: 0 };

  constructor(private readonly ctx: SandboxContext) {}

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
    this.later({ msg, code, dueAt: Date.now() + this.settings.deliveryDelayMs });
  }

  private later(final: PendingFinal): void {
    const timer = setTimeout(
      () => {
        this.finals.delete(timer);
        this.post(final.msg, final.code);
      },
      Math.max(0, final.dueAt - Date.now()),
    );
    timer.unref();
    this.finals.set(timer, final);
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
    for (const t of this.finals.keys()) clearTimeout(t);
  }

  /** The postback URL is the account's (a dashboard setting); the other settings are the run's test knobs. */
  persist(): SavedMmsState {
    return {
      postbackUrl: this.settings.postbackUrl ?? null,
      templates: Object.fromEntries(this.templates),
      byReference: Object.fromEntries(this.byReference),
      counts: Object.fromEntries(this.counts),
      stats: this.stats,
      finals: [...this.finals.values()],
    };
  }

  restore(saved: SavedMmsState): void {
    this.reset();
    if (saved.postbackUrl) this.settings.postbackUrl = saved.postbackUrl;
    for (const [id, t] of Object.entries(saved.templates)) this.templates.set(id, t);
    for (const [reference, list] of Object.entries(saved.byReference)) this.byReference.set(reference, list);
    for (const [to, n] of Object.entries(saved.counts)) this.counts.set(to, n);
    this.stats = { ...saved.stats, duplicateSamples: [...saved.stats.duplicateSamples] };
    for (const f of saved.finals) this.later(f);
  }

  reset(): void {
    this.close();
    this.finals.clear();
    this.settings = defaults();
    this.templates.clear();
    this.byReference = new Map();
    this.counts = new Map();
    this.stats = { accepted: 0, duplicateRecipients: 0, duplicateSamples: [], refusedE113: 0, requests: 0, saved: 0 };
  }
}
