// The platform's ETA for a sender ID registration: once the ETA day (plus a grace) has passed the process marks the
// registration overdue and goes on waiting; a new ETA not yet passed clears the mark.
import type { SenderIdRegistrationDetails } from '../contract.js';

/** The end of the ETA day (UTC). */
const etaEndMs = (eta: string | undefined) => (eta ? Date.parse(`${eta}T23:59:59.999Z`) : NaN);

export class EtaWatch {
  constructor(
    private readonly details: SenderIdRegistrationDetails,
    private readonly graceMs: number,
  ) {}

  /** The end of the ETA day plus the grace: past it the registration is overdue (NaN without an ETA). */
  private dueMs(): number {
    return etaEndMs(this.details.etaDate) + this.graceMs;
  }

  /** The platform gave a new ETA: not overdue any more unless it has passed too. */
  moved(eta: string): void {
    const d = this.details;
    d.etaDate = eta;
    if (d.overdue && Date.now() <= this.dueMs()) {
      d.overdue = false;
      delete d.overdueSince;
    }
  }

  /** Marks the registration overdue when its ETA has passed; true when it just did. */
  passed(): boolean {
    const d = this.details;
    if (d.overdue || !d.etaDate) return false;
    const due = this.dueMs();
    if (Number.isNaN(due) || Date.now() <= due) return false;
    d.overdue = true;
    d.overdueSince = new Date().toISOString();
    return true;
  }

  /** When the process must wake to mark it overdue; undefined when it is already, or has no ETA. */
  wakeAtMs(): number | undefined {
    if (this.details.overdue || !this.details.etaDate) return undefined;
    const due = this.dueMs();
    return Number.isNaN(due) ? undefined : due + 1;
  }
}
