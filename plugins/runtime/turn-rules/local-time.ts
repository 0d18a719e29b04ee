/**
 * Wall-clock time in an IANA time zone for a turn: what the prompt tells the model and what
 * working hours and daily limits count in. The arithmetic is the kernel's
 * (core/time/zone-time.ts); here are the runtime's own shapes of it: a weekday name in the
 * parts, UTC for a zone it does not know, and the prompt's fixed wording.
 */
import {
  civilWeekdayIndex,
  formatOffset,
  isTimeZone,
  localDateOf,
  localDayStart as dayStartOfDate,
  localParts as zoneLocalParts,
  offsetMsAt,
  type LocalParts as ZoneLocalParts,
} from '../../../core';

export { isTimeZone, formatOffset };

export interface LocalParts extends ZoneLocalParts {
  /** English weekday name, e.g. `Friday`. */
  weekday: string;
}

// In ISO order, as civilWeekdayIndex counts (0 = Monday).
const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The zone itself when it is known, else UTC: a stale or empty zone must not fail a turn. */
export function zoneOrUtc(timeZone: unknown): string {
  return isTimeZone(timeZone) ? timeZone : 'UTC';
}

/** The local date and time of `instant` in `timeZone`, with its weekday. */
export function localParts(timeZone: string, instant: Date): LocalParts {
  const parts = zoneLocalParts(timeZone, instant);
  return { ...parts, weekday: WEEKDAY_NAMES[civilWeekdayIndex(parts)] };
}

/** The zone's offset from UTC at `instant`, in milliseconds (east positive). */
export function offsetMs(timeZone: string, instant: Date): number {
  return offsetMsAt(timeZone, instant);
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `Friday 2026-11-27 01:34 (UTC+01:00)`: fixed shape, no locale wording, so it is byte-stable. */
export function formatLocalTime(timeZone: string, instant: Date): string {
  const p = localParts(timeZone, instant);
  return `${p.weekday} ${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)} (UTC${formatOffset(offsetMsAt(timeZone, instant))})`;
}

/** `2026-11-27` in the zone. */
export function formatLocalDate(timeZone: string, instant: Date): string {
  return localDateOf(instant, timeZone);
}

/**
 * The first instant of the local day that `now` is in, in `timeZone`. Usually local
 * midnight; on a day whose midnight a DST change skips (e.g. America/Santiago in
 * September) the instant the day begins, 01:00. An unknown zone counts in UTC.
 */
export function localDayStart(timeZone: string, now: Date): Date {
  const zone = zoneOrUtc(timeZone);
  return dayStartOfDate(zone, localDateOf(now, zone));
}
