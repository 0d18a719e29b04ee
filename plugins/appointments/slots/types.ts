/** The inputs and output of the slot engine (see free-slots.ts for what they mean). */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

/** Monday first, as ISO weeks count. */
export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** Opening hours on one day: `HH:MM` wall clock in the schedule's zone, `00:00`..`24:00`, start < end. */
export interface HoursInterval {
  start: string;
  end: string;
}

/** The hours of each weekday; a weekday left out (or with no intervals) is closed. */
export type WeeklyHours = Partial<Record<Weekday, HoursInterval[]>>;

/**
 * A local date whose hours differ from its weekday's: `closed: true` (no hours) or
 * `hours` (these instead of the weekday's; an empty list is closed too).
 */
export interface ScheduleException {
  /** `YYYY-MM-DD`, a local date in the schedule's zone. */
  date: string;
  closed?: boolean;
  hours?: HoursInterval[];
}

/** A time that is taken (an appointment, a calendar's busy time): half-open [start, end). */
export interface Busy {
  start: Date;
  end: Date;
}

export interface SlotSearch {
  /** IANA zone the hours, exceptions and dates are in. */
  timezone: string;
  weeklyHours: WeeklyHours;
  exceptions: ScheduleException[];
  /** Length of an appointment, > 0. */
  durationMinutes: number;
  /** Time kept free before and after an appointment, >= 0; it may lie outside the opening hours. */
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  /** Distance between slot starts; default: `durationMinutes`. Never less than 5. */
  stepMinutes?: number;
  /** Only slots with start >= from and end <= to. */
  from: Date;
  to: Date;
  /** Existing appointments and calendar busy times, in any order, may overlap. */
  busy: Busy[];
  /** Stop after this many slots. */
  limit?: number;
  /** Local dates (YYYY-MM-DD in the schedule's zone) where no more slot may be offered (e.g. max appointments per day reached). */
  fullDates?: ReadonlySet<string>;
}

export interface Slot {
  start: Date;
  end: Date;
  /** `YYYY-MM-DD` of the start, in the schedule's zone. */
  localDate: string;
  /** `YYYY-MM-DDTHH:MM`: the wall clock at the start. */
  localStart: string;
  /** The zone's offset at the start, `+02:00`: tells the two slots of a repeated (fall-back) hour apart. */
  utcOffset: string;
}
