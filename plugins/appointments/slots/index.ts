// The appointments plugin's slot engine: pure functions (no database, no HTTP), time zones from Intl.
export type { Weekday, HoursInterval, WeeklyHours, ScheduleException, Busy, SlotSearch, Slot } from './types';
export { WEEKDAYS } from './types';
export { freeSlots, MIN_STEP_MINUTES } from './free-slots';
export { suggestSlots, type SuggestRules } from './suggest';
export { spanMinutes, SPAN_PATTERN } from './span';
export { checkWeeklyHours, checkExceptions, type HoursProblem } from './hours-check';
export {
  isTimeZone,
  localDateOf,
  localDateTimeOf,
  localDayStart,
  wallClockToInstants,
  resolveWallClock,
  offsetAt,
  parseDate,
  addDays,
} from './zone-time';
