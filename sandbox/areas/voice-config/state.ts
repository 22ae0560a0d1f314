// What the configuration address keeps per sandbox: each account's numbers (a fixed set per account, so tests
// know them: three voice numbers and one SMS number) with the application each is assigned to, and each
// application's callback URLs. Reset clears assignments and URLs. One instance per sandbox, reached by both the
// configuration area and the voice switch (which reads callback URLs and number owners) through voiceConfigStateOf.
// A persistent sandbox keeps both across restarts (the 'voiceConfig' state).
import type { AccountDirectory, SandboxAccount } from '../../core/accounts.js';
import type { SandboxContext } from '../../core/context.js';
import { KeyedTable } from '../../core/table.js';
import type { CallbackUrls, VoiceNumber as OwnedNumber } from '../../../common/wire/voice.js';

/** The numbers of the account at `accountIndex` (1-based, the directory's order): +468500<index, 2 digits>01..03 voice, 09 SMS. */
function numbersFor(accountIndex: number): OwnedNumber[] {
  const base = `+468500${String(accountIndex).padStart(2, '0')}`;
  return [
    { number: `${base}01`, capability: 'voice' },
    { number: `${base}02`, capability: 'voice' },
    { number: `${base}03`, capability: 'voice' },
    { number: `${base}09`, capability: 'sms' },
  ];
}

export class VoiceConfigState {
  constructor(private readonly accounts: AccountDirectory) {}

  /** Per application key: its numbers with their assignments. */
  readonly numbers = new KeyedTable<OwnedNumber[]>();
  /** Per application key: its callback URLs. */
  readonly callbacks = new KeyedTable<CallbackUrls>();

  numbersOf(account: SandboxAccount): OwnedNumber[] {
    let list = this.numbers.get(account.appKey);
    if (!list) {
      list = numbersFor(this.accounts.all.indexOf(account) + 1);
      this.numbers.set(account.appKey, list);
    }
    return list;
  }

  assign(account: SandboxAccount, number: string, applicationKey: string | undefined): void {
    const n = this.numbersOf(account).find((o) => o.number === number);
    if (!n) return;
    if (applicationKey) n.applicationKey = applicationKey;
    else delete n.applicationKey;
  }

  /** The account and application a voice number is assigned to, if any account owns it and assigned it. */
  ownerOf(number: string): { account: SandboxAccount; applicationKey: string } | undefined {
    for (const account of this.accounts.all) {
      const n = this.numbersOf(account).find((o) => o.number === number && o.capability === 'voice');
      if (n?.applicationKey) return { account, applicationKey: n.applicationKey };
    }
    return undefined;
  }

  reset(): void {
    this.numbers.reset();
    this.callbacks.reset();
  }
}

const states = new WeakMap<SandboxContext, VoiceConfigState>();

/** The sandbox's one VoiceConfigState, created (with its reset registered) on first use by either area. */
export function voiceConfigStateOf(ctx: SandboxContext): VoiceConfigState {
  let state = states.get(ctx);
  if (!state) {
    const created = new VoiceConfigState(ctx.accounts);
    ctx.own({ parts: [created], kept: { name: 'voiceConfig', parts: { numbers: created.numbers, callbacks: created.callbacks } } });
    states.set(ctx, created);
    state = created;
  }
  return state;
}
