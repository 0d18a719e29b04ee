import { addDays, instantOf, isoWeekday, localDateOf } from './zoned-time';

/** When a rule lets its tasks run: ISO weekdays and `[start_time, end_time)` of the local clock. */
export interface RuleWindow {
  /** 1 (Monday) to 7 (Sunday). */
  weekdays: readonly number[];
  /** `HH:MM`, inclusive. */
  startTime: string;
  /** `HH:MM`, exclusive. Earlier than the start: the window runs past midnight into the next day. Equal: the whole day. */
  endTime: string;
}

const minutesOf = (hhmm: string): number => {
  const match = /^(\d{1,2}):(\d{2})$/.exec(hhmm.trim());
  if (!match) throw new Error(`not an HH:MM time: "${hhmm}"`);
  return Number(match[1]) * 60 + Number(match[2]);
};

/**
 * The earliest instant at or after `from` that lies inside the window, read in
 * `timeZone`: `from` itself when it is inside; else the start of the next window; null
 * when the window never opens (no weekday). A window belongs to the weekday it starts
 * on (an overnight Friday 22:00-06:00 window runs into Saturday morning).
 *
 * The windows are computed day by day as instants (instantOf resolves daylight saving),
 * so a window on a day the clocks change is as long as the clocks say: 09:00-17:00 on
 * the spring night is still 09:00 to 17:00 local, and a start skipped by the change
 * (02:30) opens at the first instant after the gap.
 */
export function nextAllowedSlot(from: Date, window: RuleWindow, timeZone: string): Date | null {
  const weekdays = new Set(window.weekdays);
  if (weekdays.size === 0) return null;
  const start = minutesOf(window.startTime);
  let end = minutesOf(window.endTime);
  if (end <= start) end += 24 * 60;
  const today = localDateOf(from, timeZone);
  // Yesterday's window may still be open (overnight); a week and a day ahead covers every weekday.
  for (let offset = -1; offset <= 8; offset++) {
    const day = addDays(today, offset);
    if (!weekdays.has(isoWeekday(day))) continue;
    const opens = instantOf(day, start, timeZone);
    const closes = instantOf(day, end, timeZone);
    // Swallowed by a clock change (02:00-03:00 on the spring night): no window that day.
    if (opens.getTime() >= closes.getTime()) continue;
    if (from.getTime() < closes.getTime()) return from.getTime() >= opens.getTime() ? from : opens;
  }
  return null;
}
