import { ValidationError, type FieldErrors } from '../../core';
import type { GoogleEventTime } from './google-types';

/** What create and update take to write an event (every member optional here: update changes only those given). */
export interface EventInput {
  summary?: string;
  description?: string;
  location?: string;
  start?: string;
  end?: string;
  all_day?: boolean;
  time_zone?: string;
  attendees?: string[];
}

/** Whether `zone` is an IANA time zone this runtime knows (Google knows the same database). */
function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The day after `date` (yyyy-mm-dd), in the calendar, not in any time zone. */
function nextDay(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + 1);
  return day.toISOString().slice(0, 10);
}

/**
 * Google's `start` and `end` for the input's times. A timed event sends the date-times as
 * given (with their offsets, so no zone is guessed); an all-day event sends the dates as
 * written, its end the day after the last one since Google's end date is exclusive.
 */
function eventTimes(start: string, end: string, allDay: boolean, zone: string | undefined, errors: FieldErrors): { start: GoogleEventTime; end: GoogleEventTime } {
  const withZone = zone ? { timeZone: zone } : {};
  if (allDay) {
    const [first, last] = [start.slice(0, 10), end.slice(0, 10)];
    if (last < first) errors['config.end'] = ['must not be on a date before `start` (an all-day event covers the dates of start through end)'];
    return { start: { date: first, ...withZone }, end: { date: nextDay(last), ...withZone } };
  }
  if (Date.parse(end) < Date.parse(start)) errors['config.end'] = ['must not be before `start`'];
  return { start: { dateTime: start, ...withZone }, end: { dateTime: end, ...withZone } };
}

/**
 * The body of events.insert or events.patch for the members the input gives. What the
 * schema cannot say (an end before the start, an unknown time zone, a start without its
 * end on update) is a 422 with the member's path, before Google is asked.
 */
export function eventBody(input: EventInput): Record<string, unknown> {
  const errors: FieldErrors = {};
  const body: Record<string, unknown> = {};
  for (const key of ['summary', 'description', 'location'] as const) if (input[key] !== undefined) body[key] = input[key];
  if (input.attendees !== undefined) body.attendees = input.attendees.map((email) => ({ email }));
  if (input.time_zone !== undefined && !isTimeZone(input.time_zone)) errors['config.time_zone'] = ['is not an IANA time zone (such as Europe/Paris)'];
  // Both ends move together: Google refuses a timed start with an all-day end, and a lone new start may fall after the old end.
  const timed = ['start', 'end', 'all_day', 'time_zone'] as const;
  if (timed.some((key) => input[key] !== undefined)) {
    if (input.start === undefined) errors['config.start'] = ['is required with `end`, `all_day` or `time_zone`'];
    if (input.end === undefined) errors['config.end'] = ['is required with `start`, `all_day` or `time_zone`'];
    if (input.start !== undefined && input.end !== undefined) Object.assign(body, eventTimes(input.start, input.end, input.all_day ?? false, input.time_zone, errors));
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return body;
}
