/**
 * Wall-clock time in an IANA time zone, from `Intl` alone (no time zone library, no
 * Temporal): turning a local date and 'HH:MM' into instants and back. Offsets are read
 * from the zone at each instant, so zones with non-hour offsets (Asia/Kolkata +05:30),
 * 30-minute DST shifts (Australia/Lord_Howe) and southern-hemisphere DST all work the same.
 * In the kernel because every plugin that keeps hours, limits or schedules needs the same
 * arithmetic, and one formatter cache serves them all.
 */

export interface LocalParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// Building a formatter costs far more than using one, and a slot search or a turn asks the same zone again and again.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether `name` is a zone `Intl` knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: unknown): name is string {
  // An IANA name (`Europe/Berlin`, `UTC`, `Etc/GMT+1`): Node's Intl also takes bare offsets such as `+01:00`, which are not zones (they have no DST rules).
  if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  try {
    formatterFor(name);
    return true;
  } catch {
    return false;
  }
}

/** Throws a RangeError naming the zone when `Intl` does not know it. */
export function assertTimeZone(zone: string): void {
  if (!isTimeZone(zone)) throw new RangeError(`unknown time zone: ${JSON.stringify(zone)}`);
}

/** The wall clock that `instant` shows in `zone`. */
export function localParts(zone: string, instant: Date): LocalParts {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(zone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    // Some ICU versions print midnight as 24 even with h23.
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The zone's offset from UTC at `instant` in milliseconds, east positive. */
export function offsetMsAt(zone: string, instant: Date | number): number {
  const at = typeof instant === 'number' ? instant : instant.getTime();
  const p = localParts(zone, new Date(at));
  // The formatter drops milliseconds: compare with the instant truncated to the second.
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(at / 1000) * 1000;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `+02:00`, `-05:00`, `+05:30`, `+00:00` (never `Z`): the offset as ISO 8601 writes it. */
export function formatOffset(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / MINUTE);
  return `${ms < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** The zone's offset at `instant`, as `+02:00`. */
export function offsetAt(zone: string, instant: Date): string {
  return formatOffset(offsetMsAt(zone, instant));
}

/** `YYYY-MM-DD` of a civil date. */
export function formatDate(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** The local date (`YYYY-MM-DD`) of `instant` in `zone`. */
export function localDateOf(instant: Date, zone: string): string {
  const p = localParts(zone, instant);
  return formatDate(p.year, p.month, p.day);
}

/** `YYYY-MM-DDTHH:MM`: the wall clock of `instant` in `zone`, to the minute. */
export function localDateTimeOf(instant: Date, zone: string): string {
  const p = localParts(zone, instant);
  return `${formatDate(p.year, p.month, p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}

/**
 * The local date, wall clock and offset of `instant` in one `Intl` call (a search
 * describes every slot it returns).
 */
export function describeInstant(zone: string, instant: Date): { localDate: string; localStart: string; utcOffset: string } {
  const p = localParts(zone, instant);
  const localDate = formatDate(p.year, p.month, p.day);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return {
    localDate,
    localStart: `${localDate}T${pad(p.hour)}:${pad(p.minute)}`,
    utcOffset: formatOffset(wall - Math.floor(instant.getTime() / 1000) * 1000),
  };
}

/** A calendar date, no zone. */
export interface CivilDate {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
}

/** A civil date: `year`, `month` 1..12, `day` 1..31, or null when the text is not a real calendar date. */
export function parseDate(text: unknown): CivilDate | null {
  if (typeof text !== 'string') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1) return null;
  // Day 0 of the next month is the last day of this one (leap years included).
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return { year, month, day };
}

/**
 * Minutes after midnight of an `HH:MM` clock, `00:00` to `24:00` (`24:00` is 1440), or
 * null when the text is not one.
 */
export function clockMinutes(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const match = /^(\d{2}):(\d{2})$/.exec(text);
  if (!match) return null;
  const [hour, minute] = [Number(match[1]), Number(match[2])];
  if (minute > 59 || hour > 24 || (hour === 24 && minute !== 0)) return null;
  return hour * 60 + minute;
}

function parsedDate(date: string): CivilDate {
  const parsed = parseDate(date);
  if (!parsed) throw new RangeError(`not a date: ${JSON.stringify(date)}`);
  return parsed;
}

/** The civil date `days` after `date` (negative goes back; months and years roll over). */
export function addCivilDays(date: CivilDate, days: number): CivilDate {
  const next = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

/** 0 = Monday .. 6 = Sunday, of a civil date (ISO order). */
export function civilWeekdayIndex(date: CivilDate): number {
  return (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
}

/** The civil date `days` after `date` (`YYYY-MM-DD`, negative goes back). */
export function addDays(date: string, days: number): string {
  const next = addCivilDays(parsedDate(date), days);
  return formatDate(next.year, next.month, next.day);
}

/** 0 = Monday .. 6 = Sunday, of a civil date `YYYY-MM-DD` (ISO order). */
export function isoWeekdayIndex(date: string): number {
  return civilWeekdayIndex(parsedDate(date));
}

/** The wall clock `date` + `minutes` read as if it were UTC, in ms: the number offsets are subtracted from. */
function wallAsUtc(date: string, minutes: number): number {
  const parsed = parsedDate(date);
  return Date.UTC(parsed.year, parsed.month - 1, parsed.day) + minutes * MINUTE;
}

/**
 * The instants at which the clock in `zone` reads `time` (`HH:MM`, 00:00..23:59) on `date`,
 * ascending: one on an ordinary day, none when a spring-forward gap skips it, two when
 * a fall-back overlap repeats it.
 *
 * An instant t shows the wall clock w when t = w - offset(t). The offsets that can be in
 * force are those on either side of w (a day before and after covers every real offset,
 * -12:00..+14:00, and the Samoa-style whole-day jumps); each one that satisfies the
 * equation gives an instant. This assumes a zone changes its offset at most once in
 * 48 hours, which holds for every zone in the tz database.
 */
export function wallClockToInstants(zone: string, date: string, time: string): Date[] {
  assertTimeZone(zone);
  const minutes = clockMinutes(time);
  if (minutes === null || minutes >= 24 * 60) throw new RangeError(`not a wall-clock time (00:00..23:59): ${JSON.stringify(time)}`);
  return instantsOfWall(zone, wallAsUtc(date, minutes)).map((ms) => new Date(ms));
}

function instantsOfWall(zone: string, wall: number): number[] {
  const candidates = new Set([offsetMsAt(zone, wall - DAY), offsetMsAt(zone, wall), offsetMsAt(zone, wall + DAY)]);
  const found = new Set<number>();
  for (const offset of candidates) {
    const instant = wall - offset;
    if (offsetMsAt(zone, instant) === offset) found.add(instant);
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * How `resolveWallClock` picks. `'earlier'` and `'later'`: the earlier or the later of the
 * two instants in a fall-back overlap, and in a spring-forward gap the instant the clock
 * jumps at (the first instant whose clock reads later than the missing time), so that a
 * bound never lands past the gap. `'compatible'` (as Temporal names it): the earlier in an
 * overlap, and in a gap the time moved forward by the length of the gap (02:30 on a
 * 02:00 -> 03:00 night is 03:30), so that a time keeps its distance from the hour.
 */
export type WallClockPick = 'earlier' | 'later' | 'compatible';

/**
 * One instant for a wall-clock time, `minutes` after midnight of `date` (1440 is the next
 * day's 00:00; more rolls over into the following dates): on an ordinary day the only one;
 * in an overlap or a gap as `pick` says.
 */
export function resolveWallClock(zone: string, date: string, minutes: number, pick: WallClockPick): Date {
  assertTimeZone(zone);
  const wall = wallAsUtc(date, minutes);
  const instants = instantsOfWall(zone, wall);
  if (instants.length > 0) return new Date(pick === 'later' ? instants[instants.length - 1] : instants[0]);
  // Read with the offset before the change: lands as far past the gap as the time was into it.
  if (pick === 'compatible') return new Date(wall - offsetMsAt(zone, wall - DAY));
  return new Date(gapEnd(zone, wall));
}

/**
 * The instant a spring-forward gap that skips the wall clock `wall` ends. Before the change
 * the offset is `before`, after it `after` (> `before`): the change lies in
 * (wall - after, wall - before]. Found by bisection to the second (changes fall on whole seconds).
 */
function gapEnd(zone: string, wall: number): number {
  const before = offsetMsAt(zone, wall - DAY);
  const after = offsetMsAt(zone, wall + DAY);
  if (after <= before) throw new RangeError(`cannot place ${new Date(wall).toISOString().slice(0, 16)} in ${zone}`);
  let low = Math.floor((wall - after) / 1000); // still at `before`
  let high = Math.ceil((wall - before) / 1000); // already at `after`
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetMsAt(zone, middle * 1000) === before) low = middle;
    else high = middle;
  }
  return high * 1000;
}

/** The instant local `date` begins in `zone`: its midnight, or the end of the gap when a DST change skips midnight. */
export function localDayStart(zone: string, date: string): Date {
  return resolveWallClock(zone, date, 0, 'earlier');
}
