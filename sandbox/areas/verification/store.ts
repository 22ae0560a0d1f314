// Verifications of one sandbox instance, forgotten on reset. A persistent sandbox keeps them (a Kept part, with
// expiresAt, so the expiry is rescheduled after a restart); the indexes by number and reference are rebuilt.
import type { Kept } from '../../core/kept.js';
import { Lists, ScopedTable } from '../../core/table.js';
import type { SmsCodeType, VerificationMethod, VerificationStatus } from '../../../common/wire/verification.js';

/** The wire's status answer as the sandbox keeps it, with what only the sandbox knows (the code, the expiry...). */
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
}

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

export class VerificationStore implements Kept<readonly unknown[]> {
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

  /** Every verification in the order added (the indexes' order). */
  save(): Verification[] {
    return this.byId.all();
  }

  /** Re-adds saved verifications in their order, rebuilding the indexes. */
  load(saved: readonly unknown[]): void {
    this.reset();
    for (const v of saved) this.add(v as Verification);
  }

  all(): Verification[] {
    return this.byId.all();
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
