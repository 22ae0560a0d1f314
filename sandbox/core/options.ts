// Options of createSandbox, and their defaults.
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { defaultSandboxAccount, type SandboxAccount } from './accounts.js';

export interface SandboxOptions {
  /** Default: one account from defaultSandboxAccount(). */
  accounts?: SandboxAccount[];
  /** Default 3600, as the platform. */
  tokenLifetimeSeconds?: number;
  /**
   * How long after its creation a subproject becomes usable with its parent project's key (requests for its
   * project are refused 403 until then). Default 5000 (the spec: up to 30 s).
   */
  subprojectReadyAfterMs?: number;
  /** Default: 800 per project per second. */
  rateLimits?: { perProjectPerSecond?: number };
  /** Default false (silent). */
  logger?: Logger | false;
  /** How the provisioning area's simulated reviewers decide; default approve / launch / activate after 1000 ms. */
  provisioningReviewer?: ProvisioningReviewerOptions;
  /** Where the verification area sends its callbacks; default none (no VerificationRequestEvent either). */
  verificationCallbackUrl?: string;
  /** Verifications without an sms.expiry expire (FAIL "Expired") after this; default 600000 (10 min). */
  verificationExpiryMs?: number;
  /** Number prefix -> SMS language that wins over Accept-Language; default `{"+33": "fr-FR"}`. */
  carrierLanguageOverrides?: Record<string, string>;
  /** Numbers whose SMS is never delivered (SmsDeliveredEvent Failed). */
  verificationUndeliverableNumbers?: string[];
  /** Numbers whose verifications go ERROR "Network error or number unreachable" at once. */
  verificationUnreachableNumbers?: string[];
  /** Phone Call polling hints in the start answer, seconds; default 1, 60, 2. */
  verificationCallout?: Partial<VerificationOptions['callout']>;
  /** How long a start waits for the VerificationRequestEvent answer; default 5000. */
  verificationRequestEventTimeoutMs?: number;
  /** Delay of the SmsDeliveredEvent after an SMS is sent; default 100. */
  verificationSmsDeliveryDelayMs?: number;
  /**
   * Keeps the sandbox's state in an embedded store under `<dataDir>/sandbox`, so a sandbox started again on the
   * same directory remembers every resource and carries on (core/persistence.ts). Default: in memory only.
   */
  dataDir?: string;
}

export interface ResolvedSandboxOptions {
  accounts: SandboxAccount[];
  tokenLifetimeSeconds: number;
  subprojectReadyAfterMs: number;
  rateLimits: { perProjectPerSecond: number };
  logger: Logger | undefined;
  /** Checked by the provisioning area, which owns the value sets. */
  provisioningReviewer: ProvisioningReviewerOptions;
  verification: VerificationOptions;
  /** Where the state is kept (`<dataDir>/sandbox`); undefined: in memory only. */
  stateDir: string | undefined;
}

export interface VerificationOptions {
  callbackUrl: string | undefined;
  expiryMs: number;
  carrierLanguageOverrides: Record<string, string>;
  undeliverableNumbers: string[];
  unreachableNumbers: string[];
  callout: { startPollingAfter: number; stopPollingAfter: number; pollingInterval: number };
  requestEventTimeoutMs: number;
  smsDeliveryDelayMs: number;
}

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new Error(`sandbox option ${name} must be a ${allowZero ? 'non-negative' : 'positive'} number (got ${value})`);
  }
  return value;
}

export function resolveOptions(opts: SandboxOptions = {}): ResolvedSandboxOptions {
  return {
    accounts: opts.accounts?.length ? opts.accounts : [defaultSandboxAccount()],
    tokenLifetimeSeconds: positive('tokenLifetimeSeconds', opts.tokenLifetimeSeconds, 3600),
    subprojectReadyAfterMs: positive('subprojectReadyAfterMs', opts.subprojectReadyAfterMs, 5000, true),
    rateLimits: {
      perProjectPerSecond: positive('rateLimits.perProjectPerSecond', opts.rateLimits?.perProjectPerSecond, 800),
    },
    logger: opts.logger || undefined,
    provisioningReviewer: opts.provisioningReviewer ?? {},
    verification: resolveVerificationOptions(opts),
    stateDir: resolveStateDir(opts.dataDir),
  };
}

function resolveStateDir(dataDir: string | undefined): string | undefined {
  if (dataDir === undefined) return undefined;
  if (typeof dataDir !== 'string' || dataDir.trim() === '') throw new Error(`sandbox option dataDir must be a directory path (got ${JSON.stringify(dataDir)})`);
  return join(resolve(dataDir), 'sandbox');
}

function resolveVerificationOptions(opts: SandboxOptions): VerificationOptions {
  const url = opts.verificationCallbackUrl;
  if (url !== undefined && !/^https?:\/\/[^/]/.test(url)) {
    throw new Error(`sandbox option verificationCallbackUrl must be an http(s) URL (got ${url})`);
  }
  const c = opts.verificationCallout ?? {};
  return {
    callbackUrl: url,
    expiryMs: positive('verificationExpiryMs', opts.verificationExpiryMs, 600_000),
    carrierLanguageOverrides: { ...(opts.carrierLanguageOverrides ?? { '+33': 'fr-FR' }) },
    undeliverableNumbers: [...(opts.verificationUndeliverableNumbers ?? [])],
    unreachableNumbers: [...(opts.verificationUnreachableNumbers ?? [])],
    callout: {
      startPollingAfter: positive('verificationCallout.startPollingAfter', c.startPollingAfter, 1, true),
      stopPollingAfter: positive('verificationCallout.stopPollingAfter', c.stopPollingAfter, 60),
      pollingInterval: positive('verificationCallout.pollingInterval', c.pollingInterval, 2),
    },
    requestEventTimeoutMs: positive('verificationRequestEventTimeoutMs', opts.verificationRequestEventTimeoutMs, 5000),
    smsDeliveryDelayMs: positive('verificationSmsDeliveryDelayMs', opts.verificationSmsDeliveryDelayMs, 100, true),
  };
}

/** Per resource kind: the outcome, when it comes (delayMs after submit / launch / create) and what it says. */
export interface ProvisioningReviewerOptions {
  templates?: { outcome?: 'approve' | 'reject'; rejectionCode?: string; delayMs?: number; comment?: string };
  rcs?: { outcome?: 'launch' | 'reject'; delayMs?: number; rejectCountries?: string[]; comment?: string };
  chataSenders?: { outcome?: 'activate' | 'reject' | 'error'; errorCode?: string; delayMs?: number };
  chatbSenders?: { outcome?: 'activate' | 'reject'; delayMs?: number; comment?: string };
}
