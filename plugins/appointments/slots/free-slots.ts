import type { Busy, HoursInterval, ScheduleException, Slot, SlotSearch } from './types';
import { WEEKDAYS } from './types';
import {
  addDays,
  assertTimeZone,
  clockMinutes,
  isoWeekdayIndex,
  describeInstant,
  localDateOf,
  localDayStart,
  resolveWallClock,
} from './zone-time';

/**
 * The free appointment slots of a schedule between two instants.
 *
 * Hours. Each local date (in `timezone`) from the date of `from` to the date of `to`
 * takes its hours from the exception for that date when there is one (`closed: true`
 * or an empty `hours`: none; `hours`: those, instead of the weekday's; an exception
 * with neither leaves the weekday's hours), else from its weekday in `weeklyHours`.
 * When two exceptions name one date the first one counts. Dates in `fullDates` give
 * no slot at all.
 *
 * Windows. Each interval of a date is a window whose wall-clock bounds become instants:
 * - on an ordinary day, the one instant the clock shows that time;
 * - a bound in a spring-forward gap (a time that does not exist that day) moves to the
 *   instant the clock jumps at (02:30 on a day that jumps from 02:00 to 03:00 becomes
 *   03:00 after the change);
 * - a bound in a fall-back overlap (a time the clock shows twice) is the earlier of the
 *   two instants for a start and the later for an end, so the window keeps the whole
 *   repeated hour;
 * - an end of `24:00` is the instant the next local day begins (its midnight, the
 *   earlier one if midnight repeats, the end of the gap if it is skipped).
 * A window whose end is not after its start once placed (it lies wholly in a gap) is empty.
 *
 * Slots. Slot starts step from the window's start instant every `stepMinutes` real
 * minutes (default `durationMinutes`, never less than 5), so a window keeps its real
 * length across a DST change: on a fall-back day a 00:00-03:00 window holds 4 hours,
 * the repeated hour's slots appearing twice with different `utcOffset`s; on a
 * spring-forward day a 01:00-04:00 window holds 2 hours, and no slot starts at a
 * local time that does not exist. A slot [start, start + duration) must lie inside one
 * window (slots never span two windows, even adjacent ones) and inside [from, to]:
 * start >= from and end <= to; the grid stays anchored at the window's start when
 * `from` falls inside it.
 *
 * Busy. A slot is free when [start - bufferBefore, end + bufferAfter) meets no busy
 * interval (all intervals half-open, so a busy time ending exactly where the buffered
 * slot begins does not block it; an empty or reversed busy interval blocks nothing).
 * Buffers may reach outside the window.
 *
 * Result: ascending by start, no start twice (windows of one date can overlap in real
 * time on a fall-back day: 00:00-01:30 and 01:30-03:00), at most `limit` slots.
 *
 * Cost: busy times are sorted and merged once; each window finds its first relevant
 * busy interval by bisection and then walks slots and busy intervals together, jumping
 * past each busy interval, so a search costs O(busy log busy + days + slots) plus a few
 * `Intl` calls per window and per slot returned.
 *
 * Throws a RangeError for an unknown zone, a duration that is not > 0, a negative
 * buffer, a step that is not > 0 or an hours interval that is not HH:MM with start < end
 * (write validation, hours-check.ts, keeps those out of stored schedules).
 */
export function freeSlots(search: SlotSearch): Slot[] {
  const zone = search.timezone;
  assertTimeZone(zone);
  const duration = minutesToMs(search.durationMinutes, 'durationMinutes', false);
  const before = minutesToMs(search.bufferBeforeMinutes, 'bufferBeforeMinutes', true);
  const after = minutesToMs(search.bufferAfterMinutes, 'bufferAfterMinutes', true);
  const step = Math.max(MIN_STEP_MINUTES * MINUTE, minutesToMs(search.stepMinutes ?? search.durationMinutes, 'stepMinutes', false));
  const limit = search.limit === undefined ? Infinity : Math.floor(search.limit);
  const from = search.from.getTime();
  const to = search.to.getTime();
  if (!(limit >= 1) || !(to > from)) return [];

  const windows = windowsBetween(search, from, to);
  const busy = mergeBusy(search.busy);
  const out: Slot[] = [];
  // `out` stays sorted; `lastStart` lets the usual case (slots arriving in order) append.
  let lastStart = -Infinity;

  for (const window of windows) {
    if (out.length >= limit && window.start >= out[limit - 1].start.getTime()) break;
    const last = Math.min(window.end, to) - duration; // the latest start that still fits
    let k = Math.max(0, Math.ceil((from - window.start) / step));
    let i = firstBusyEndingAfter(busy, window.start + k * step - before);
    for (let start = window.start + k * step; start <= last; start = window.start + k * step) {
      if (out.length >= limit && start >= out[limit - 1].start.getTime()) break;
      const reachFrom = start - before;
      const reachTo = start + duration + after;
      while (i < busy.length && busy[i].end <= reachFrom) i++;
      if (i < busy.length && busy[i].start < reachTo) {
        // Blocked: the next start that can be free has its buffer begin at this busy interval's end.
        k = Math.max(k + 1, Math.ceil((busy[i].end + before - window.start) / step));
        continue;
      }
      if (start > lastStart) {
        out.push(slotAt(zone, start, duration));
        lastStart = start;
      } else insertUnique(out, zone, start, duration);
      k++;
    }
  }
  return out.length > limit ? out.slice(0, limit) : out;
}

/** Steps below this would flood a search with near-identical slots. */
export const MIN_STEP_MINUTES = 5;

const MINUTE = 60_000;

interface Window {
  start: number;
  end: number;
}

function minutesToMs(value: number, name: string, zeroAllowed: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) {
    throw new RangeError(`${name} must be a number ${zeroAllowed ? '>= 0' : '> 0'}, got ${String(value)}`);
  }
  return value * MINUTE;
}

/** Every window of every local date from `from`'s to `to`'s, sorted by start. */
function windowsBetween(search: SlotSearch, from: number, to: number): Window[] {
  const zone = search.timezone;
  const exceptions = new Map<string, ScheduleException>();
  for (const exception of search.exceptions) if (!exceptions.has(exception.date)) exceptions.set(exception.date, exception);
  const lastDate = localDateOf(new Date(to), zone);
  const windows: Window[] = [];
  for (let date = localDateOf(new Date(from), zone); date <= lastDate; date = addDays(date, 1)) {
    if (search.fullDates?.has(date)) continue;
    for (const interval of hoursOf(search, exceptions.get(date), date)) {
      const window = placeWindow(zone, date, interval);
      if (window.end > window.start) windows.push(window);
    }
  }
  return windows.sort((a, b) => a.start - b.start || a.end - b.end);
}

function hoursOf(search: SlotSearch, exception: ScheduleException | undefined, date: string): HoursInterval[] {
  if (exception?.closed === true) return [];
  if (exception?.hours) return exception.hours;
  return search.weeklyHours[WEEKDAYS[isoWeekdayIndex(date)]] ?? [];
}

function placeWindow(zone: string, date: string, interval: HoursInterval): Window {
  const start = clockMinutes(interval.start);
  const end = clockMinutes(interval.end);
  if (start === null || end === null || start >= end) {
    throw new RangeError(`hours on ${date} are not HH:MM with start < end: ${JSON.stringify(interval)}`);
  }
  return {
    start: resolveWallClock(zone, date, start, 'earlier').getTime(),
    end: (end === 24 * 60 ? localDayStart(zone, addDays(date, 1)) : resolveWallClock(zone, date, end, 'later')).getTime(),
  };
}

/** Busy intervals sorted and merged (overlapping or touching ones become one); empty ones dropped. */
function mergeBusy(busy: Busy[]): Window[] {
  const sorted = busy
    .map((b) => ({ start: b.start.getTime(), end: b.end.getTime() }))
    .filter((b) => b.end > b.start)
    .sort((a, b) => a.start - b.start);
  const merged: Window[] = [];
  for (const b of sorted) {
    const top = merged[merged.length - 1];
    if (top && b.start <= top.end) top.end = Math.max(top.end, b.end);
    else merged.push({ ...b });
  }
  return merged;
}

/** Index of the first merged busy interval that ends after `instant` (ends ascend once merged). */
function firstBusyEndingAfter(busy: Window[], instant: number): number {
  let low = 0;
  let high = busy.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (busy[middle].end <= instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

function slotAt(zone: string, start: number, duration: number): Slot {
  const at = new Date(start);
  return { start: at, end: new Date(start + duration), ...describeInstant(zone, at) };
}

/** The rare out-of-order slot (overlapping windows): into its place, unless that start is already there. */
function insertUnique(out: Slot[], zone: string, start: number, duration: number): void {
  let low = 0;
  let high = out.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (out[middle].start.getTime() < start) low = middle + 1;
    else high = middle;
  }
  if (low < out.length && out[low].start.getTime() === start) return;
  out.splice(low, 0, slotAt(zone, start, duration));
}
