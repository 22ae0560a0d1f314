// Verifications of one sandbox instance, and the timers (expiry, delivery receipts) that act on them;
// everything here is forgotten on reset and the timers cleared on close. A persistent sandbox saves the
// verifications (with expiresAt, so the expiry is rescheduled after a restart) through persist()/restore().
import { Lists, ScopedTable } from '../../core/table.js';
import type { SmsCodeType, VerificationMethod, VerificationStatus } from '../../../common/wire/verification.js';

/** The wire's status answer as the sandbox keeps it, with what only the sandbox knows (the code, the timers...). */
export interface Verification extends VerificationStatus {
  /** The application that started it: lookups are scoped to it and callbacks signed with it. */
  appKey: string;
  language: string;
  createdAt: string;
  /** sms, callout and whatsapp: the code the phone receives. */
  code?: string;
  codeType?: SmsCodeType;
  /** sms: the `sms.locale` the start asked for (the language used is `language`). */
  locale?: string;
  /** flashcall: the calling number, and the digits its cliFilter captures. */
  cli?: string;
  cliDigits?: string;
  /** seamless: the secret part of targetUri. */
  seamlessToken?: string;
  /** Epoch ms when a PENDING verification expires. */
  expiresAt?: number;
  expiryTimer?: NodeJS.Timeout;
}

/** A verification as saved: everything but its live timer. */
export type SavedVerification = Omit<Verification, 'expiryTimer'>;

/** The fields of `v` named, those it has (answers leave the others out). */
export function present<K extends keyof Verification>(v: Verification, ...keys: K[]): Pick<Verification, K> {
  return Object.fromEntries(keys.filter((k) => v[k] !== undefined).map((k) => [k, v[k]])) as Pick<Verification, K>;
}

/** The status answer of GET .../verifications/... */
export function statusView(v: Verification): VerificationStatus {
  return {
    id: v.id,
    method: v.method,
    status: v.status,
    ...present(v, 'reason', 'reference', 'custom'),
    identity: { ...v.identity },
    ...present(v, 'source'),
    language: v.language,
    createdAt: v.createdAt,
  };
}

export class VerificationStore {
  /** Scoped by the application that started each. */
  private readonly byId = new ScopedTable<Verification>({ scope: (v) => v.appKey });
  /** Per app and number / reference, oldest first. */
  private readonly byNumber = new Lists<Verification>();
  private readonly byReference = new Lists<Verification>();

  add(v: Verification): void {
    this.byId.add(v);
    this.byNumber.add(`${v.appKey}\u0000${v.identity.endpoint}`, v);
    if (v.reference !== undefined) this.byReference.add(`${v.appKey}\u0000${v.reference}`, v);
  }

  get(appKey: string, id: string): Verification | undefined {
    return this.byId.get(appKey, id);
  }

  /** For the unauthenticated device and test routes, which know only the id. */
  getAnyApp(id: string): Verification | undefined {
    return this.byId.find(id)?.item;
  }

  newestByNumber(appKey: string, endpoint: string, method?: VerificationMethod): Verification | undefined {
    const list = this.byNumber.get(`${appKey}\u0000${endpoint}`);
    return findLast(list, (v) => method === undefined || v.method === method);
  }

  pendingByNumber(appKey: string, endpoint: string): Verification[] {
    return this.byNumber.get(`${appKey}\u0000${endpoint}`).filter((v) => v.status === 'PENDING');
  }

  newestByReference(appKey: string, reference: string): Verification | undefined {
    const list = this.byReference.get(`${appKey}\u0000${reference}`);
    return list[list.length - 1];
  }

  /** Every verification in the order added (the indexes' order), without timers. */
  persist(): SavedVerification[] {
    return this.byId.all().map(({ expiryTimer: _timer, ...v }) => v);
  }

  /** Re-adds saved verifications in their order, rebuilding the indexes. */
  restore(saved: readonly SavedVerification[]): Verification[] {
    this.reset();
    return saved.map((s) => {
      const v: Verification = { ...s, identity: { ...s.identity } };
      this.add(v);
      return v;
    });
  }

  reset(): void {
    this.byId.reset();
    this.byNumber.reset();
    this.byReference.reset();
  }
}

function findLast<T>(list: readonly T[], pred: (t: T) => boolean): T | undefined {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i]!)) return list[i];
  return undefined;
}

/** setTimeout's ceiling; longer delays would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

/** The area's timers, so reset and close can clear every one of them. */
export class Timers {
  private readonly live = new Set<NodeJS.Timeout>();
  private closed = false;

  /** After close() nothing is scheduled: a start still finishing while the sandbox closes leaves no timer. */
  after(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (this.closed) return undefined;
    const t = setTimeout(
      () => {
        this.live.delete(t);
        fn();
      },
      Math.min(ms, MAX_DELAY_MS),
    );
    this.live.add(t);
    return t;
  }

  cancel(t: NodeJS.Timeout | undefined): void {
    if (t === undefined) return;
    clearTimeout(t);
    this.live.delete(t);
  }

  get size(): number {
    return this.live.size;
  }

  reset(): void {
    for (const t of this.live) clearTimeout(t);
    this.live.clear();
  }

  close(): void {
    this.closed = true;
    this.reset();
  }
}
