/**
 * Wall-clock time in IANA zones for task windows: the local date of an instant, and the
 * instant of a local date and time (with daylight saving rules). The arithmetic is the
 * kernel's (core/time/zone-time.ts); here are outreach's shapes of it: dates as objects,
 * ISO weekdays 1..7.
 */
import {
  addCivilDays,
  civilWeekdayIndex,
  formatDate,
  localParts,
  offsetMsAt,
  resolveWallClock,
  type CivilDate,
} from '../../../core';

/** A calendar date, no zone. `month` 1-12. */
export type LocalDate = CivilDate;

/** Whether `name` is an IANA zone this runtime knows (`Europe/Madrid`, `UTC`); offsets such as `+01:00` are not zones (the kernel's rule). */
export { isTimeZone } from '../../../core';

/** The zone's offset from UTC at that instant, in ms (Madrid in summer: +7,200,000). */
export function offsetMs(instant: number, timeZone: string): number {
  return offsetMsAt(timeZone, instant);
}

/** The local date of the instant in the zone. */
export function localDateOf(instant: Date, timeZone: string): LocalDate {
  const { year, month, day } = localParts(timeZone, instant);
  return { year, month, day };
}

/** The date `days` later (earlier when negative). */
export function addDays(date: LocalDate, days: number): LocalDate {
  return addCivilDays(date, days);
}

/** ISO weekday of the date: 1 Monday ... 7 Sunday. */
export function isoWeekday(date: LocalDate): number {
  return civilWeekdayIndex(date) + 1;
}

/**
 * The instant when the zone's clocks show `minutes` past midnight of `date` (minutes
 * beyond a day roll over to the next dates). Daylight saving is resolved as
 * Temporal's `compatible` does: a time skipped by the spring change is moved forward
 * by the gap (02:30 on a 02:00->03:00 night is 03:30), a time shown twice in autumn is
 * the first one.
 */
export function instantOf(date: LocalDate, minutes: number, timeZone: string): Date {
  return resolveWallClock(timeZone, formatDate(date.year, date.month, date.day), minutes, 'compatible');
}
