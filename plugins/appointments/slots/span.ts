/**
 * Spans written as `<count>_<unit>` (`30_minutes`, `2_hours`, `1_day`, `2_weeks`), as
 * settings such as a booking notice or horizon store them, in minutes. A day is 1440
 * minutes and a week 7 days: a span is a length of real time, not a number of calendar
 * days (it does not stretch across a DST change).
 */

export const SPAN_PATTERN = /^([0-9]{1,6})_(min|mins|minute|minutes|hour|hours|day|days|week|weeks)$/;

const UNIT_MINUTES: Record<string, number> = {
  min: 1,
  mins: 1,
  minute: 1,
  minutes: 1,
  hour: 60,
  hours: 60,
  day: 1440,
  days: 1440,
  week: 10_080,
  weeks: 10_080,
};

/** The minutes in `span`; throws a RangeError for anything that does not match SPAN_PATTERN. */
export function spanMinutes(span: string): number {
  const match = typeof span === 'string' ? SPAN_PATTERN.exec(span) : null;
  if (!match) throw new RangeError(`not a span like "2_hours": ${JSON.stringify(span)}`);
  return Number(match[1]) * UNIT_MINUTES[match[2]];
}
