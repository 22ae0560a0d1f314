// Counts the tests and benchmarks read to prove no message was lost and none sent twice: accepted
// messages per recipient identity, kept per app and overall, updated as they happen so a read of
// the stats is O(1) however many messages went through.
const MAX_SAMPLES = 20;

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
    return (appId === undefined ? this.total : this.byApp.get(appId) ?? new Counters()).view();
  }

  recipients(appId?: string): Record<string, number> {
    const c = appId === undefined ? this.total : this.byApp.get(appId);
    return Object.fromEntries(c?.recipients ?? []);
  }

  clear(): void {
    this.total = new Counters();
    this.byApp.clear();
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
