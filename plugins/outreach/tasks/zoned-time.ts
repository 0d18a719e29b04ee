/**
 * Wall-clock time in IANA zones with nothing but Intl: the local date and time of an
 * instant, and the instant of a local date and time (with daylight saving rules).
 */

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** A calendar date, no zone. `month` 1-12. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `name` is an IANA zone this runtime knows (`Europe/Madrid`, `UTC`); offsets such as `+01:00` are not zones. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** The instant's wall clock in the zone, as milliseconds of a UTC date with the same digits. */
function wallClockMs(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The zone's offset from UTC at that instant, in ms (Madrid in summer: +7,200,000). */
export function offsetMs(instant: number, timeZone: string): number {
  const whole = instant - (((instant % 1000) + 1000) % 1000);
  return wallClockMs(whole, timeZone) - whole;
}

/** The local date of the instant in the zone. */
export function localDateOf(instant: Date, timeZone: string): LocalDate {
  const wall = new Date(wallClockMs(instant.getTime(), timeZone));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/** The date `days` later (earlier when negative). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** ISO weekday of the date: 1 Monday ... 7 Sunday. */
export function isoWeekday(date: LocalDate): number {
  const day = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return day === 0 ? 7 : day;
}

/**
 * The instant when the zone's clocks show `minutes` past midnight of `date` (minutes
 * beyond a day roll over to the next dates). Daylight saving is resolved as
 * Temporal's `compatible` does: a time skipped by the spring change is moved forward
 * by the gap (02:30 on a 02:00->03:00 night is 03:30), a time shown twice in autumn is
 * the first one.
 */
export function instantOf(date: LocalDate, minutes: number, timeZone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day, 0, minutes);
  // The offsets a day either side: a transition near this time lies between them.
  const before = offsetMs(wall - DAY_MS, timeZone);
  const after = offsetMs(wall + DAY_MS, timeZone);
  const matching = [...new Set([wall - before, wall - after])].filter((instant) => wallClockMs(instant, timeZone) === wall);
  if (matching.length > 0) return new Date(Math.min(...matching));
  // Skipped by the clocks: read with the offset before the change, which lands past the gap.
  return new Date(wall - before);
}
