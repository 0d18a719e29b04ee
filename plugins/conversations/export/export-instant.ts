/**
 * Instants of the message export, exact to PostgreSQL's microsecond.
 *
 * A JavaScript `Date` keeps milliseconds only, while `created_at` (timestamptz) keeps
 * microseconds: rows written by SQL (imports, other writers) can differ below the
 * millisecond. Converting through `Date` would make a `from` bound or a cursor
 * position land between such rows, so instants stay text here: the canonical form
 * `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, six fraction digits), which PostgreSQL reads
 * back exactly and which sorts as text in time order.
 */

// RFC 3339 (the `date-time` format the schema already checked); the offset is required.
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:([Zz])|([+-])(\d\d):(\d\d))$/;

const MICROS_PER_SECOND = 1_000_000;

/**
 * The canonical text of an ISO 8601 / RFC 3339 date-time, or null when it is not one
 * or falls outside the years 0001-9999. A fraction finer than a microsecond is
 * rounded up: a stored value (whole microseconds) is `>=` the given instant exactly
 * when it is `>=` the rounded one, so the half-open range keeps its meaning.
 */
export function canonicalInstant(text: string): string | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction = '', zulu, sign, offsetHours, offsetMinutes] = match;
  let micros = Number(fraction.slice(0, 6).padEnd(6, '0'));
  if (/[1-9]/.test(fraction.slice(6))) micros += 1;

  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  // No 31 April: Date would roll it over to 1 May.
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return null;
  // A leap second (23:59:60) rolls over to the next minute, as PostgreSQL reads it.
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  let seconds = date.getTime() / 1000;
  if (!zulu) seconds -= (sign === '-' ? -1 : 1) * (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60);
  if (micros === MICROS_PER_SECOND) {
    seconds += 1;
    micros = 0;
  }
  return formatInstant(seconds, micros);
}

function formatInstant(epochSeconds: number, micros: number): string | null {
  const iso = new Date(epochSeconds * 1000).toISOString();
  // toISOString writes `+010000-...` or `-000001-...` outside 0000-9999; year 0 is not a date PostgreSQL knows.
  if (iso.length !== 24 || iso.startsWith('0000')) return null;
  return `${iso.slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

/**
 * A `timestamp` PostgreSQL wrote (`created_at at time zone 'UTC'`, DateStyle ISO,
 * which the ORM relies on too: `2024-05-01 10:00:00.5`, fraction digits trimmed) as
 * the API's ISO 8601: milliseconds, as Date.toISOString() writes them and every other
 * timestamp of the API reads, or microseconds when the value has them (rows written
 * by SQL rather than by the API), so that the order shown is never coarser than the
 * order kept. Called once per exported row: string slicing only, no Date.
 */
export function isoFromUtcTimestamp(text: string): string {
  const length = text.length;
  // Years 10000 and later or BC: not written by this API; shown as PostgreSQL wrote them.
  const lastCode = text.charCodeAt(length - 1);
  if (length < 19 || length > 26 || text.charCodeAt(10) !== 32 || lastCode < 48 || lastCode > 57) return text;
  const date = text.slice(0, 10);
  const time = text.slice(11, 19);
  if (length === 19) return `${date}T${time}.000Z`;
  const fraction = text.slice(20);
  return fraction.length <= 3 ? `${date}T${time}.${fraction.padEnd(3, '0')}Z` : `${date}T${time}.${fraction.padEnd(6, '0')}Z`;
}
