// Quiet hours in a recipient's local time: whether a country's recipients may be sent to now, and when that
// changes. A country's zones come from countries-and-timezones (libphonenumber-js gives a number's country, not its
// zone); a country with several zones is open only while it is outside the quiet hours in every one of them.
import { getTimezonesForCountry } from 'countries-and-timezones';
import { secondsOfDay, type QuietHours } from '../contract.js';

const DAY_S = 86_400;

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall-clock time of day in `zone` at `at`, in seconds after midnight. */
function localSeconds(zone: string, at: Date): number {
  let f = formats.get(zone);
  if (!f)
    formats.set(zone, (f = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hourCycle: 'h23', hour: 'numeric', minute: 'numeric', second: 'numeric' })));
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return Number(parts.hour) * 3600 + Number(parts.minute) * 60 + Number(parts.second);
}

/** A number's zones by its country (ISO alpha-2); none known (a non-geographic number): UTC. */
export function zonesOf(country: string | null | undefined): string[] {
  const zones = country ? (getTimezonesForCountry(country) ?? []).map((z) => z.name) : [];
  return zones.length ? zones : ['UTC'];
}

export interface Window {
  open: boolean;
  /** When `open` may change next (the nearest quiet-hours edge in any of the zones). */
  changesAt: Date;
}

/** Whether `zones` are all outside the quiet hours at `now`, and the next time one of them crosses an edge. */
export function windowOf(zones: readonly string[], quiet: QuietHours, now: Date): Window {
  const from = secondsOfDay(quiet.from);
  const to = secondsOfDay(quiet.to);
  let open = true;
  let next = DAY_S;
  for (const zone of zones) {
    const t = localSeconds(zone, now);
    // [from, to) local, wrapping past midnight when from > to (21:00 to 08:00).
    const quietNow = from < to ? t >= from && t < to : t >= from || t < to;
    if (quietNow) open = false;
    const edge = quietNow ? to : from;
    next = Math.min(next, (edge - t + DAY_S) % DAY_S || DAY_S);
  }
  // A second after the edge, so the zone is past it when looked at again.
  return { open, changesAt: new Date(now.getTime() + (next + 1) * 1000) };
}
