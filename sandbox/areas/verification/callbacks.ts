// The three verification callbacks, sent through the sandbox's dispatcher (retries, drop and
// duplicate faults, GET /_sandbox/callbacks) and signed as the owning application.
import type { SandboxAccount } from '../../core/accounts.js';
import { applicationCallbackSigner } from '../../core/callback-signers.js';
import type { CallbackSigner } from '../../core/callbacks.js';
import type { SandboxContext } from '../../core/context.js';
import type { VerificationConfig } from './config.js';
import type { Verification } from './store.js';

const CONTENT_TYPE = 'application/json; charset=UTF-8';
const PRICE = { amount: 0.0045, currencyId: 'EUR' };

/** The dispatcher sends bare `application/json`; the platform adds the charset, so sign and send that. */
function signer(account: SandboxAccount): CallbackSigner {
  const sign = applicationCallbackSigner(account.appKey, account.appSecret);
  return (input) => sign({ ...input, contentType: CONTENT_TYPE });
}

export type RequestDecision = { allow: true; code?: string } | { allow: false; reason: 'Denied by callback' | 'Invalid callback' };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const CODE = /^[A-Za-z0-9]{1,16}$/;

/** allow / deny from the answer; anything else (non-2xx, not JSON, no answer) is an invalid callback. */
function decide(delivered: boolean, text: string | undefined, v: Verification): RequestDecision {
  let answer: unknown;
  try {
    answer = delivered && text !== undefined ? JSON.parse(text) : undefined;
  } catch {
    answer = undefined;
  }
  if (!isObj(answer)) return { allow: false, reason: 'Invalid callback' };
  if (answer.action === 'deny') return { allow: false, reason: 'Denied by callback' };
  if (answer.action !== 'allow') return { allow: false, reason: 'Invalid callback' };
  // The answer may choose the code the SMS (or the Phone Call) carries.
  const key = v.method === 'sms' ? 'sms' : v.method === 'callout' ? 'callout' : undefined;
  const given = key && isObj(answer[key]) ? (answer[key] as Obj).code : undefined;
  if (given === undefined) return { allow: true };
  if (typeof given !== 'string' || !CODE.test(given)) return { allow: false, reason: 'Invalid callback' };
  return { allow: true, code: given };
}

export class VerificationCallbacks {
  constructor(
    private readonly ctx: SandboxContext,
    private readonly config: VerificationConfig,
  ) {}

  get enabled(): boolean {
    return this.config.current.callbackUrl !== undefined;
  }

  /** Asks the application once, waiting at most the configured time; no retries (the start is waiting). */
  async requestEvent(v: Verification, account: SandboxAccount, acceptLanguage: readonly string[]): Promise<RequestDecision> {
    const url = this.config.current.callbackUrl;
    if (url === undefined) return { allow: true };
    const body = {
      event: 'VerificationRequestEvent',
      ...base(v),
      price: PRICE,
      rate: PRICE,
      acceptLanguage: [...acceptLanguage],
    };
    const result = await this.ctx.callbacks.dispatch({
      area: 'verification',
      url,
      body,
      signer: signer(account),
      retrySchedule: [],
      timeoutMs: this.config.current.requestEventTimeoutMs,
    });
    return decide(result.delivered, result.responseText, v);
  }

  result(v: Verification, account: SandboxAccount): void {
    this.send(account, {
      event: 'VerificationResultEvent',
      ...base(v),
      status: v.status,
      ...(v.reason !== undefined ? { reason: v.reason } : {}),
      ...(v.source !== undefined ? { source: v.source } : {}),
    });
  }

  /** Named as configured (the platform's VerificationSmsDeliveredEvent by default); echoes custom like the others. */
  smsDelivered(v: Verification, account: SandboxAccount, smsResult: 'Successful' | 'Failed'): void {
    this.send(account, { event: this.config.current.smsDeliveredEventName, ...base(v), smsResult });
  }

  private send(account: SandboxAccount, body: Obj): void {
    const url = this.config.current.callbackUrl;
    if (url === undefined) return;
    // Fire and forget: the dispatcher never rejects and keeps the outcome for inspection.
    void this.ctx.callbacks.dispatch({ area: 'verification', url, body, signer: signer(account) });
  }
}

function base(v: Verification): Obj {
  return {
    id: v.id,
    method: v.method,
    identity: { ...v.identity },
    ...(v.reference !== undefined ? { reference: v.reference } : {}),
    ...(v.custom !== undefined ? { custom: v.custom } : {}),
  };
}
