// What one platform call looked like, for whoever counts them (the API's and the worker's metrics). The
// platform layer only describes the call; it knows nothing of Prometheus.
import {
  PlatformAuthError,
  PlatformConflictError,
  PlatformDeniedError,
  PlatformError,
  PlatformNotFoundError,
  PlatformRateLimitError,
  PlatformUnavailableError,
  PlatformValidationError,
  type PlatformInterface,
} from './errors.js';

/** The client folder a call belongs to (platform/<area>/, and auth/ for OAuth tokens). */
export type PlatformCallArea = Exclude<PlatformInterface, 'template' | 'batch'>;

/** How a call ended: `cancelled` is the caller's own abort (an activity cancelled), not the platform's doing. */
type PlatformCallOutcome = 'ok' | 'error' | 'cancelled';

/** Why a call failed: the typed error's kind, and for no answer at all, whether it timed out or never connected. */
export type PlatformCallErrorType =
  'validation' | 'auth' | 'denied' | 'not_found' | 'conflict' | 'rate_limited' | 'unavailable' | 'timeout' | 'network' | 'other';

export interface PlatformCall {
  area: PlatformCallArea;
  outcome: PlatformCallOutcome;
  errorType?: PlatformCallErrorType;
  durationMs: number;
}

export type PlatformCallObserver = (call: PlatformCall) => void;

// The conversation family's template and batch interfaces live in conversation/; the error areas name them apart.
const AREAS: Record<PlatformInterface, PlatformCallArea> = {
  auth: 'auth',
  subprojects: 'subprojects',
  verification: 'verification',
  provisioning: 'provisioning',
  senderid: 'senderid',
  conversation: 'conversation',
  template: 'conversation',
  batch: 'conversation',
  mms: 'mms',
  voice: 'voice',
};

/** The area a call is counted (and traced) under. */
export const platformCallArea = (area: PlatformInterface): PlatformCallArea => AREAS[area];

export function platformCallErrorType(err: unknown): PlatformCallErrorType {
  if (err instanceof PlatformUnavailableError) return err.code === 'TIMEOUT' ? 'timeout' : err.code === 'NETWORK_ERROR' ? 'network' : 'unavailable';
  if (err instanceof PlatformRateLimitError) return 'rate_limited';
  if (err instanceof PlatformValidationError) return 'validation';
  if (err instanceof PlatformDeniedError) return 'denied';
  if (err instanceof PlatformAuthError) return 'auth';
  if (err instanceof PlatformNotFoundError) return 'not_found';
  if (err instanceof PlatformConflictError) return 'conflict';
  return 'other';
}

/** The observation of a call that started at `startedMs` (performance.now()) and ended now, with `err` when it threw. */
export function platformCallOf(area: PlatformInterface, startedMs: number, err?: unknown, signal?: AbortSignal): PlatformCall {
  const base = { area: AREAS[area], durationMs: performance.now() - startedMs };
  if (err === undefined) return { ...base, outcome: 'ok' };
  // An abort by the caller is rethrown as-is (not a PlatformError): nothing the platform did.
  if (signal?.aborted && !(err instanceof PlatformError)) return { ...base, outcome: 'cancelled' };
  return { ...base, outcome: 'error', errorType: platformCallErrorType(err) };
}
