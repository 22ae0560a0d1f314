// The audit archive: closed processes' timelines kept in the store after Temporal's retention deletes their
// histories (workers/audit/), for years rather than the namespace's days.
import Type, { type Static } from 'typebox';
import { millis, whole } from './fields.js';

export interface AuditSettings {
  /** Archived processes are kept this long after their last run closed; then the sweep deletes them whole. */
  keepDays: number;
  /** How often the archiver looks for runs that closed since it last looked. */
  intervalMs: number;
}

/** For a worker given no audit settings (tests that build their configuration by hand). */
export const DEFAULT_AUDIT_SETTINGS: AuditSettings = { keepDays: 2_557, intervalMs: 30_000 };

export const AUDIT_VARIABLES = Type.Object({
  RELAYFLOW_AUDIT_KEEP_DAYS: whole(
    DEFAULT_AUDIT_SETTINGS.keepDays,
    1,
    36_525,
    "archived processes (summary and timeline) are kept this many days after their last run closed (default: 7 years), whatever Temporal's retention",
  ),
  RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS: millis(
    DEFAULT_AUDIT_SETTINGS.intervalMs,
    100,
    3_600_000,
    'how often a worker with a store looks for processes that closed since it last looked, and archives them',
  ),
});

export function loadAuditSettings(v: Static<typeof AUDIT_VARIABLES>): AuditSettings {
  return { keepDays: v.RELAYFLOW_AUDIT_KEEP_DAYS, intervalMs: v.RELAYFLOW_AUDIT_ARCHIVE_INTERVAL_MS };
}
