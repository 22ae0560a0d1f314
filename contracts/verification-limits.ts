// What the API and the verification limits' workflows share (issue 25): the rate-limit buckets (each a
// numberGuard run under its own ID: the same durable sliding window as the per-number guard) and the SMS-pumping
// guard, one per destination prefix (workflows/verification/pumping-guard.ts).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PumpingSlot, PumpingThresholds, PumpingTotals } from '../common/verification-pumping.js';

/**
 * A rate-limit bucket: one per limit and value, keyed by the value's keyed hash (common/subject-hash.ts), never
 * the value (an IP or a user ID). Per task queue, so deployments sharing a namespace keep their own counts.
 */
export const rateBucketWorkflowId = (taskQueue: string, limitId: string, valueHash: string) => `verification-rate:${taskQueue}:${limitId}:${valueHash}`;

/** The pumping guard of a destination prefix (a few leading digits: a range, not a person). */
export const pumpingGuardWorkflowId = (taskQueue: string, prefix: string) => `verification-pumping:${taskQueue}:${prefix}`;

export interface PumpingDecision {
  at: number;
  kind: 'blocked' | 'lifted' | 'expired';
  starts: number;
  successes: number;
  /** The API key ID that lifted it. */
  by?: string;
  note?: string;
}

export interface PumpingGuardState {
  prefix: string;
  windowMs: number;
  thresholds: PumpingThresholds;
  slots: PumpingSlot[];
  /** Set while the prefix is blocked: new starts to it are refused (or moved) until `until` or a lift. */
  blocked?: { since: number; until: number; starts: number; successes: number };
  /** The newest decisions first, at most 20 (the whole list is in the history). */
  decisions: PumpingDecision[];
}

export interface PumpingGuardView {
  prefix: string;
  windowMs: number;
  thresholds: PumpingThresholds;
  totals: PumpingTotals;
  blocked?: PumpingGuardState['blocked'];
  decisions: PumpingDecision[];
}

/**
 * Starts the API let through, counted toward the prefix's starts (and judged): `count` of them, batched by the API
 * instance (`processId` names a single one).
 */
export const pumpingStartSignal = defineSignal<[PumpingCount]>('pumpingStart');
/** Correct codes reported for verifications to the prefix, batched as the starts. */
export const pumpingSuccessSignal = defineSignal<[PumpingCount]>('pumpingSuccess');

export interface PumpingCount {
  /** Absent: 1. */
  count?: number;
  processId?: string;
}
/** An operator lifts the block; the window's counts start afresh. */
export const liftPumpingUpdate = defineUpdate<PumpingGuardView, [{ actor?: string; note?: string }]>('liftPumpingBlock');
export const pumpingQuery = defineQuery<PumpingGuardView>('pumpingGuard');
