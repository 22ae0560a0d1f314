// Counts the tests and benchmarks read to prove no message was lost and none sent twice: accepted
// messages per recipient identity, kept per app and overall, updated as they happen so a read of
// the stats is O(1) however many messages went through.
const MAX_SAMPLES = 20;

interface SavedCounters {
  accepted: number;
  requests: number;
  refused429: number;
  duplicates: number;
  samples: string[];
  recipients: Record<string, number>;
}

class Counters {
  accepted = 0;
  requests = 0;
  refused429 = 0;
  duplicates = 0;
  readonly samples: string[] = [];
  readonly recipients = new Map<string, number>();

  accept(identity: string): void {
    this.accepted++;
    const n = (this.recipients.get(identity) ?? 0) + 1;
    this.recipients.set(identity, n);
    if (n === 2) {
      this.duplicates++;
      if (this.samples.length < MAX_SAMPLES) this.samples.push(identity);
    }
  }

  save(): SavedCounters {
    const { accepted, requests, refused429, duplicates, samples } = this;
    return { accepted, requests, refused429, duplicates, samples, recipients: Object.fromEntries(this.recipients) };
  }

  static load(saved: SavedCounters): Counters {
    const c = new Counters();
    Object.assign(c, { accepted: saved.accepted, requests: saved.requests, refused429: saved.refused429, duplicates: saved.duplicates });
    c.samples.push(...saved.samples);
    for (const [identity, n] of Object.entries(saved.recipients)) c.recipients.set(identity, n);
    return c;
  }

  view() {
    return {
      accepted: this.accepted,
      distinctRecipients: this.recipients.size,
      duplicateRecipients: this.duplicates,
      duplicateSamples: [...this.samples],
      refused429: this.refused429,
      requests: this.requests,
    };
  }
}

export type SendStatsView = ReturnType<Counters['view']>;

export class SendStats {
  private total = new Counters();
  private readonly byApp = new Map<string, Counters>();

  /** A message accepted for `identity` (the channel identity it goes to). */
  accepted(appId: string, identity: string): void {
    this.total.accept(identity);
    this.app(appId).accept(identity);
  }

  /** One messages:send call; `appId` is the body's app_id when it had one; status 0 when the caller gave up. */
  answered(appId: string | undefined, status: number): void {
    for (const c of appId === undefined ? [this.total] : [this.total, this.app(appId)]) {
      c.requests++;
      if (status === 429) c.refused429++;
    }
  }

  view(appId?: string): SendStatsView {
    return (appId === undefined ? this.total : (this.byApp.get(appId) ?? new Counters())).view();
  }

  recipients(appId?: string): Record<string, number> {
    const c = appId === undefined ? this.total : this.byApp.get(appId);
    return Object.fromEntries(c?.recipients ?? []);
  }

  reset(): void {
    this.total = new Counters();
    this.byApp.clear();
  }

  /** Kept across restarts, so duplicate sends are still caught when a process resends after one. */
  save(): { total: SavedCounters; byApp: Record<string, SavedCounters> } {
    return { total: this.total.save(), byApp: Object.fromEntries([...this.byApp].map(([id, c]) => [id, c.save()])) };
  }

  load(saved: { total: SavedCounters; byApp: Record<string, SavedCounters> }): void {
    this.total = Counters.load(saved.total);
    this.byApp.clear();
    for (const [id, c] of Object.entries(saved.byApp)) this.byApp.set(id, Counters.load(c));
  }

  private app(appId: string): Counters {
    let c = this.byApp.get(appId);
    if (!c) {
      c = new Counters();
      this.byApp.set(appId, c);
    }
    return c;
  }
}
