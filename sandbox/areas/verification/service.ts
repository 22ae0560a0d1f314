// What happens to a verification: start (request event, replacement, delivery to the phone,
// expiry), reports, the device's interceptions, and the final states with their result events.
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import type { SandboxAccount } from '../../core/accounts.js';
import type { SandboxContext } from '../../core/context.js';
import { AreaError } from '../../core/errors.js';
import type { Timers } from '../../core/timers.js';
import type { VerificationCallbacks } from './callbacks.js';
import type { VerificationConfig } from './config.js';
import { chooseLanguage, renderTemplate } from './language.js';
import { generateCli, generateCode, sameCli, sameCode, type Phones } from './phone.js';
import { present, type Verification, type VerificationStore } from './store.js';
import type { ReportResult, VerificationSource, VerificationStatusValue } from '../../../common/wire/verification.js';
import { ERROR_CODES, invalidParameter, type ReportInput, type StartInput } from './validate.js';

const REASONS = {
  invalidCode: 'Invalid code',
  invalidCli: 'Invalid CLI',
  expired: 'Expired',
  hungUp: 'Hung up without entering valid code',
  replaced: 'Replaced by a newer verification',
  unreachable: 'Network error or number unreachable',
} as const;

export interface Deps {
  ctx: SandboxContext;
  store: VerificationStore;
  phones: Phones;
  config: VerificationConfig;
  callbacks: VerificationCallbacks;
  timers: Timers;
}

export class VerificationService {
  constructor(private readonly d: Deps) {}

  /**
   * Throws 403 40300 when the application's callback refuses; the verification is then kept as DENIED. A whatsapp start
   * on an application without WhatsApp is refused (403 40300 "Method not enabled") before anything is kept or sent.
   */
  async start(input: StartInput, account: SandboxAccount, acceptLanguage: readonly string[]): Promise<Verification> {
    const settings = this.d.config.current;
    if (input.method === 'whatsapp' && !settings.whatsappEnabled) {
      throw new AreaError(403, 'Method not enabled: whatsapp is not enabled for this application', { code: ERROR_CODES.denied });
    }
    const v: Verification = {
      id: ulid(),
      appKey: account.appKey,
      method: input.method,
      status: 'PENDING',
      ...(input.reference !== undefined ? { reference: input.reference } : {}),
      ...(input.custom !== undefined ? { custom: input.custom } : {}),
      identity: { type: 'number', endpoint: input.endpoint },
      ...(input.locale !== undefined ? { locale: input.locale } : {}),
      language: chooseLanguage({
        endpoint: input.endpoint,
        ...(input.locale !== undefined ? { locale: input.locale } : {}),
        acceptLanguage,
        applicationDefault: settings.defaultLanguage ?? account.verificationDefaultLanguage,
        carrierOverrides: settings.carrierLanguageOverrides,
      }),
      createdAt: new Date().toISOString(),
    };
    if (input.method === 'sms' || input.method === 'whatsapp') {
      v.codeType = input.codeType;
      v.code = generateCode(v.codeType, input.codeLength);
    } else if (input.method === 'callout') {
      v.codeType = 'Numeric';
      v.code = generateCode(v.codeType);
    }

    const decision = await this.d.callbacks.requestEvent(v, account, acceptLanguage);
    if (!decision.allow) {
      this.d.store.add(v);
      this.finish(v, 'DENIED', decision.reason);
      throw new AreaError(403, decision.reason, { code: ERROR_CODES.denied });
    }
    if (decision.code !== undefined) v.code = decision.code;

    for (const older of this.d.store.pendingByNumber(account.appKey, input.endpoint)) this.finish(older, 'ABORTED', REASONS.replaced);
    this.d.store.add(v);
    if (this.d.config.current.unreachableNumbers.has(input.endpoint)) {
      this.finish(v, 'ERROR', REASONS.unreachable);
      return v;
    }
    this.deliver(v, account);
    v.expiresAt = Date.now() + (input.expiryMs ?? settings.expiryMs);
    this.armExpiry(v);
    return v;
  }

  /** Fails a PENDING verification as Expired at its expiresAt; also after a restore. */
  armExpiry(v: Verification): void {
    if (v.status !== 'PENDING' || v.expiresAt === undefined) return;
    this.d.timers.after(
      Math.max(0, v.expiresAt - Date.now()),
      () => {
        if (v.status === 'PENDING') this.finish(v, 'FAIL', REASONS.expired);
      },
      expiryKey(v),
    );
  }

  /** A wrong code answers FAIL but leaves the verification PENDING; a final one answers unchanged. */
  report(v: Verification, input: ReportInput): ReportResult {
    if (input.method !== v.method) throw invalidParameter('method', `the verification was started with method ${v.method}`);
    if (v.status !== 'PENDING') return answer(v);
    const right = input.method === 'flashcall' ? sameCli(v.cli!, v.cliDigits!, input.cli) : sameCode(v.code!, input.code);
    if (!right) {
      const reason = input.method === 'flashcall' ? REASONS.invalidCli : REASONS.invalidCode;
      return { ...answer(v), status: 'FAIL', reason, source: 'manual' };
    }
    this.finish(v, 'SUCCESSFUL', undefined, 'manual');
    return answer(v);
  }

  /** The device opened targetUri: the carrier confirms the number. */
  visitSeamless(v: Verification): void {
    if (v.status === 'PENDING') this.finish(v, 'SUCCESSFUL', undefined, 'intercepted');
  }

  /** The callee typed a code on the Phone Call; a wrong one hangs up for good. */
  answerCallout(v: Verification, code: string): void {
    if (v.method !== 'callout') throw new AreaError(400, `Verification ${v.id} is not a Phone Call (method ${v.method})`);
    if (v.status !== 'PENDING') return;
    if (sameCode(v.code!, code)) this.finish(v, 'SUCCESSFUL', undefined, 'intercepted');
    else this.finish(v, 'FAIL', REASONS.hungUp);
  }

  private deliver(v: Verification, account: SandboxAccount): void {
    const { phones, config, callbacks, timers } = this.d;
    const endpoint = v.identity.endpoint;
    const common = { verificationId: v.id, method: v.method, language: v.language };
    if (v.method === 'sms') {
      const delivered = !config.current.undeliverableNumbers.has(endpoint);
      if (delivered) phones.receive(endpoint, { ...common, kind: 'sms', text: renderTemplate(v.language, v.code!), code: v.code! });
      // A callback, not a change of state: like the dispatcher's deliveries in flight, a restart loses it.
      timers.after(config.current.smsDeliveryDelayMs, () => callbacks.smsDelivered(v, account, delivered ? 'Successful' : 'Failed'));
    } else if (v.method === 'flashcall') {
      const { cli, digits } = generateCli();
      v.cli = cli;
      v.cliDigits = digits;
      phones.receive(endpoint, { ...common, kind: 'flashcall', cli });
    } else if (v.method === 'callout') {
      phones.receive(endpoint, { ...common, kind: 'callout', text: renderTemplate(v.language, v.code!), code: v.code! });
    } else if (v.method === 'whatsapp') {
      // Delivery receipts are the SMS's only (wire notes): a WhatsApp message just arrives.
      phones.receive(endpoint, { ...common, kind: 'whatsapp', text: renderTemplate(v.language, v.code!), code: v.code! });
    } else {
      v.seamlessToken = randomBytes(16).toString('hex');
    }
  }

  private finish(v: Verification, status: Exclude<VerificationStatusValue, 'PENDING'>, reason?: string, source?: VerificationSource): void {
    this.d.timers.cancel(expiryKey(v));
    v.status = status;
    if (reason !== undefined) v.reason = reason;
    if (source !== undefined) v.source = source;
    const account = this.d.ctx.accounts.byApplicationKey(v.appKey);
    if (account) this.d.callbacks.result(v, account);
  }
}

function answer(v: Verification): ReportResult {
  return {
    id: v.id,
    method: v.method,
    status: v.status,
    ...present(v, 'reason', 'reference', 'source'),
  };
}

/** The Timers key of a verification's expiry, so its end cancels it. */
const expiryKey = (v: Verification) => `expiry ${v.id}`;
