import { WEEKDAYS, type Weekday } from './types';
import { clockMinutes, parseDate } from './zone-time';

/**
 * Checks for opening hours and exceptions as they are written, beyond what a JSON schema
 * can say: clocks that are real `HH:MM` (`00:00`..`24:00`), start before end, no two
 * intervals of one day overlapping (touching is fine: 09:00-12:00 and 12:00-17:00),
 * exception dates that exist in the calendar and are not given twice, and an exception
 * that is either `closed: true` or has `hours`. Each problem names its place
 * (`weekly_hours.mon[1].end`, `exceptions[0].date`); no problems is an empty list.
 */

export interface HoursProblem {
  path: string;
  message: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function checkWeeklyHours(value: unknown, path = 'weekly_hours'): HoursProblem[] {
  if (!isObject(value)) return [{ path, message: 'must be an object keyed by weekday (mon..sun)' }];
  const problems: HoursProblem[] = [];
  for (const [key, intervals] of Object.entries(value)) {
    if (!WEEKDAYS.includes(key as Weekday)) {
      problems.push({ path: `${path}.${key}`, message: `is not a weekday (${WEEKDAYS.join(', ')})` });
      continue;
    }
    if (!Array.isArray(intervals)) problems.push({ path: `${path}.${key}`, message: 'must be a list of {start, end}' });
    else problems.push(...checkIntervals(intervals, `${path}.${key}`));
  }
  return problems;
}

export function checkExceptions(value: unknown, path = 'exceptions'): HoursProblem[] {
  if (!Array.isArray(value)) return [{ path, message: 'must be a list' }];
  const problems: HoursProblem[] = [];
  const seen = new Map<string, number>();
  value.forEach((exception: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(exception)) {
      problems.push({ path: at, message: 'must be an object with date and closed or hours' });
      return;
    }
    if (!parseDate(exception.date)) {
      problems.push({ path: `${at}.date`, message: 'must be a calendar date, YYYY-MM-DD' });
    } else {
      const first = seen.get(exception.date as string);
      if (first !== undefined) problems.push({ path: `${at}.date`, message: `repeats ${path}[${first}].date` });
      else seen.set(exception.date as string, index);
    }
    if (exception.closed !== undefined && typeof exception.closed !== 'boolean') {
      problems.push({ path: `${at}.closed`, message: 'must be true or false' });
    }
    if (exception.hours !== undefined) {
      if (exception.closed === true) problems.push({ path: `${at}.hours`, message: 'must be left out when closed is true' });
      if (!Array.isArray(exception.hours)) problems.push({ path: `${at}.hours`, message: 'must be a list of {start, end}' });
      else problems.push(...checkIntervals(exception.hours, `${at}.hours`));
    } else if (exception.closed !== true) {
      problems.push({ path: at, message: 'needs closed: true or hours' });
    }
  });
  return problems;
}

/** One day's intervals: each well formed, then no two overlapping. */
function checkIntervals(intervals: unknown[], path: string): HoursProblem[] {
  const problems: HoursProblem[] = [];
  const valid: Array<{ index: number; start: number; end: number; text: string }> = [];
  intervals.forEach((interval: unknown, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(interval)) {
      problems.push({ path: at, message: 'must be an object with start and end' });
      return;
    }
    const start = clockMinutes(interval.start);
    const end = clockMinutes(interval.end);
    if (start === null) problems.push({ path: `${at}.start`, message: 'must be HH:MM, 00:00 to 24:00' });
    if (end === null) problems.push({ path: `${at}.end`, message: 'must be HH:MM, 00:00 to 24:00' });
    if (start === null || end === null) return;
    if (end <= start) {
      problems.push({ path: `${at}.end`, message: `must be after start (${interval.start as string})` });
      return;
    }
    const overlapped = valid.find((other) => other.start < end && start < other.end);
    if (overlapped) problems.push({ path: at, message: `overlaps ${path}[${overlapped.index}] (${overlapped.text})` });
    valid.push({ index, start, end, text: `${interval.start as string}-${interval.end as string}` });
  });
  return problems;
}
