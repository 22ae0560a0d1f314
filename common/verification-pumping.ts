// The SMS-pumping guard's arithmetic: per destination prefix, the starts and the successful reports over a
// sliding window, kept as a few time slots (a bounded state, whatever the traffic); a prefix whose conversion falls
// below the floor once it has enough starts is blocked. Pure: the guard's workflow (processes/verification/verification/workflow/
// pumping-guard.ts) runs it, and it is tested alone (test/common/verification-limits.test.ts).

/** Slots per window: the window slides by a twentieth of itself, so a count is at most one slot stale. */
const SLOTS_PER_WINDOW = 20;

export interface PumpingSlot {
  /** Epoch ms the slot begins (a multiple of the slot's length). */
  at: number;
  starts: number;
  successes: number;
}

export interface PumpingTotals {
  starts: number;
  successes: number;
}

export interface PumpingThresholds {
  /** Starts in the window before the conversion is judged at all. */
  minStarts: number;
  /** Blocked below this share of starts that reported a correct code (0-1). */
  floor: number;
}

export const slotMsOf = (windowMs: number) => Math.max(1, Math.ceil(windowMs / SLOTS_PER_WINDOW));

/** The slots still (partly) inside the window ending at `now`. */
export function inWindow(slots: readonly PumpingSlot[], now: number, windowMs: number): PumpingSlot[] {
  const slotMs = slotMsOf(windowMs);
  return slots.filter((s) => s.at + slotMs > now - windowMs);
}

/** The slots with one more start or success at `now` (and the ones out of the window dropped). */
export function record(slots: readonly PumpingSlot[], now: number, windowMs: number, what: 'start' | 'success', count = 1): PumpingSlot[] {
  const slotMs = slotMsOf(windowMs);
  const at = Math.floor(now / slotMs) * slotMs;
  const kept = inWindow(slots, now, windowMs);
  const current = kept.find((s) => s.at === at);
  const add = (s: PumpingSlot): PumpingSlot => (what === 'start' ? { ...s, starts: s.starts + count } : { ...s, successes: s.successes + count });
  return current ? kept.map((s) => (s === current ? add(s) : s)) : [...kept, add({ at, starts: 0, successes: 0 })];
}

export function totals(slots: readonly PumpingSlot[], now: number, windowMs: number): PumpingTotals {
  return inWindow(slots, now, windowMs).reduce((t, s) => ({ starts: t.starts + s.starts, successes: t.successes + s.successes }), {
    starts: 0,
    successes: 0,
  });
}

/** Successes over starts (a success may outlive its start's slot: at most 1). */
export const conversion = (t: PumpingTotals) => (t.starts === 0 ? 1 : Math.min(1, t.successes / t.starts));

/** Whether these totals look like pumping: enough starts, too few of them reported. */
export const looksLikePumping = (t: PumpingTotals, th: PumpingThresholds) => t.starts >= th.minStarts && conversion(t) < th.floor;

/**
 * The prefix a number is judged under: its first `digits` digits (country code included), e.g. `44770` for
 * +447700900123 with 5. Short enough to name a range, not a person.
 */
export const pumpingPrefixOf = (identity: string, digits: number) => identity.replace(/^\+/, '').slice(0, digits);
