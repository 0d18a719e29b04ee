/**
 * Wall-clock time in an IANA time zone, from `Intl` alone (no time zone library):
 * what the prompt tells the model and what working hours and daily limits count in.
 */

export interface LocalParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** English weekday name, e.g. `Friday`. */
  weekday: string;
}

// Formatters are costly to build and each turn asks for the same few zones.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
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
      weekday: 'long',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether `timeZone` is a zone `Intl` knows. */
export function isTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone === '') return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone itself when it is known, else UTC: a stale or empty zone must not fail a turn. */
export function zoneOrUtc(timeZone: unknown): string {
  return isTimeZone(timeZone) ? timeZone : 'UTC';
}

/** The local date and time of `instant` in `timeZone`. */
export function localParts(timeZone: string, instant: Date): LocalParts {
  const parts: Record<string, string> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday,
  };
}

/** The zone's offset from UTC at `instant`, in milliseconds (east positive). */
export function offsetMs(timeZone: string, instant: Date): number {
  const p = localParts(timeZone, instant);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `+01:00`, `-03:00`, `+05:45`. */
export function formatOffset(ms: number): string {
  const minutes = Math.round(Math.abs(ms) / 60_000);
  return `${ms < 0 ? '-' : '+'}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** `Friday 2026-11-27 01:34 (UTC+01:00)`: fixed shape, no locale wording, so it is byte-stable. */
export function formatLocalTime(timeZone: string, instant: Date): string {
  const p = localParts(timeZone, instant);
  return `${p.weekday} ${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)} (UTC${formatOffset(offsetMs(timeZone, instant))})`;
}

/** `2026-11-27` in the zone. */
export function formatLocalDate(timeZone: string, instant: Date): string {
  const p = localParts(timeZone, instant);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

const dayKey = (p: LocalParts) => p.year * 10_000 + p.month * 100 + p.day;

/**
 * The first instant of the local day that `now` is in, in `timeZone`. Usually local
 * midnight; on a day whose midnight a DST change skips (e.g. America/Santiago in
 * September) the instant the day begins, 01:00. An unknown zone counts in UTC.
 */
export function localDayStart(timeZone: string, now: Date): Date {
  const zone = zoneOrUtc(timeZone);
  const today = localParts(zone, now);
  const midnight = Date.UTC(today.year, today.month - 1, today.day);
  // Two passes: the offset at midnight may differ from the offset now (a DST change today).
  const guess = midnight - offsetMs(zone, new Date(midnight - offsetMs(zone, now)));
  const atGuess = localParts(zone, new Date(guess));
  if (dayKey(atGuess) === dayKey(today) && atGuess.hour === 0 && atGuess.minute === 0 && atGuess.second === 0) return new Date(guess);
  // Midnight does not exist today: the day starts at the change. Find the first
  // instant (to the millisecond) whose local date is today, near the guess.
  const target = dayKey(today);
  let before = guess - 6 * 3_600_000;
  let after = Math.min(guess + 6 * 3_600_000, now.getTime());
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (dayKey(localParts(zone, new Date(middle))) >= target) after = middle;
    else before = middle;
  }
  return new Date(after);
}
