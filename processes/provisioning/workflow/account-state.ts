// The CHATA business account's ban, as the processes of its senders and templates see it (docs/provisioning-wire.md,
// "CHATA business account"). An event that says the account changed (CHATA_WABA_ACCOUNT_CHANGED on the account, or on
// a sender without a sender state) asks for a read of the account; the read decides: DISABLE moves the process to
// ACCOUNT_BANNED, remembering the state it held, and a lifted ban (REINSTATE, or no ban state) moves it back. While
// banned, a platform state the process would move to is remembered instead, unless it ends the process.
import type { ChataAccount, ProvisioningEvent, ResourceRef } from '../contract.js';
import type { ProcessState } from '../../shared/workflow/process-state.js';

export const ACCOUNT_BANNED = 'ACCOUNT_BANNED';

/** What the process shows of the account (its details' `account`). */
export interface AccountNote {
  /** The account's ID, read at start: the key of its inbox. */
  id?: string;
  banState?: string;
  banDate?: string;
  state?: string;
  readAt?: string;
  /** The events that asked for a read not yet made. */
  readDue?: string[];
  /** The state the process held when the ban came, or the platform's state reached since: where a lift returns. */
  held?: string;
  reads: number;
}

const accountOf = (accountId: string): ResourceRef => ({ channel: 'CHATA', resourceType: 'ACCOUNT', resourceId: accountId });

/** True for an event that says the account changed (not a sender's own state). */
const saysAccountChanged = (e: ProvisioningEvent) =>
  e.channel === 'CHATA' && e.trigger === 'CHATA_WABA_ACCOUNT_CHANGED' && (e.resourceType === 'ACCOUNT' || e.details.state === undefined);

export class AccountWatch<S extends string> {
  constructor(
    private readonly d: { account?: AccountNote },
    private readonly tracker: ProcessState<S, unknown>,
    private readonly isFinalState: (s: S) => boolean,
  ) {}

  banned(): boolean {
    return this.tracker.status.state === ACCOUNT_BANNED;
  }

  /**
   * At the process's start: reads the account (a ban from before the process began is in no event it will get) and
   * attaches the process to the account's inbox, keyed by the account's ID, so the account's events reach it.
   */
  async start(read: () => Promise<ChataAccount>, attach: (r: ResourceRef) => Promise<void>): Promise<void> {
    this.due('start');
    await this.react(read);
    await attach(accountOf(this.d.account!.id!));
  }

  private due(why: string): void {
    const note = (this.d.account ??= { reads: 0 });
    note.readDue = [...new Set([...(note.readDue ?? []), why])];
  }

  /** For the event list: the note when the event was an account change (a read is then due), else undefined. */
  noteEvent(e: ProvisioningEvent): string | undefined {
    if (!saysAccountChanged(e)) return undefined;
    this.due(e.trigger);
    return `the account changed${e.details.banState ? ` (ban state ${e.details.banState})` : ''}: the account is read`;
  }

  /**
   * While banned, a move to a state that does not end the process is remembered as where the lift returns, and
   * noted; returns true when it held the move (the caller does not move).
   */
  hold(s: S, reason: string): boolean {
    if (!this.banned() || s === ACCOUNT_BANNED || this.isFinalState(s)) return false;
    this.d.account!.held = s;
    this.tracker.moveTo(ACCOUNT_BANNED as S, `${reason}; held at ${s} until the account ban is lifted`);
    return true;
  }

  /** Reads the account when an event asked for it and applies its ban; true when a ban was just lifted. */
  async react(read: () => Promise<ChataAccount>): Promise<boolean> {
    const note = this.d.account;
    if (!note?.readDue?.length) return false;
    const why = note.readDue.join(', ');
    const a = await read();
    delete note.readDue;
    Object.assign(note, { id: a.id, banState: a.banState, banDate: a.banDate, state: a.state, readAt: new Date().toISOString(), reads: note.reads + 1 });
    const state = this.tracker.status.state;
    if (this.isFinalState(state)) return false;
    const since = a.banDate ? ` since ${a.banDate}` : '';
    if (a.banState === 'DISABLE') {
      if (this.banned()) return false;
      note.held = state;
      this.tracker.moveTo(
        ACCOUNT_BANNED as S,
        `account BANNED (ban state DISABLE${since}; read after ${why}): the account's senders and templates cannot be used`,
      );
      return false;
    }
    if (this.banned()) {
      const back = (note.held ?? 'CREATING') as S;
      delete note.held;
      this.tracker.moveTo(back, `account ban lifted (ban state ${a.banState ?? 'none'}; read after ${why}): back to ${back}`);
      return true;
    }
    if (a.banState === 'SCHEDULE_FOR_DISABLE')
      this.tracker.moveTo(state, `account scheduled for disable${a.banDate ? ` on ${a.banDate}` : ''} (read after ${why})`);
    return false;
  }
}
