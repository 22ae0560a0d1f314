// Options of createSandbox, and their defaults.
import type { Logger } from 'pino';
import { defaultSandboxAccount, type SandboxAccount } from './accounts.js';

export interface SandboxOptions {
  /** Default: one account from defaultSandboxAccount(). */
  accounts?: SandboxAccount[];
  /** Default 3600, as the platform. */
  tokenLifetimeSeconds?: number;
  /** Default 5000 (the real platform: up to 30 s). */
  subprojectReadyAfterMs?: number;
  /** Defaults: 800 per project, 20 per app, per second. */
  rateLimits?: { perProjectPerSecond?: number; perAppPerSecond?: number };
  /** Default false (silent). */
  logger?: Logger | false;
}

export interface ResolvedSandboxOptions {
  accounts: SandboxAccount[];
  tokenLifetimeSeconds: number;
  subprojectReadyAfterMs: number;
  rateLimits: { perProjectPerSecond: number; perAppPerSecond: number };
  logger: Logger | undefined;
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
      perAppPerSecond: positive('rateLimits.perAppPerSecond', opts.rateLimits?.perAppPerSecond, 20),
    },
    logger: opts.logger || undefined,
  };
}
