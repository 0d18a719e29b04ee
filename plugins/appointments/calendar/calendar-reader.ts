import type { EntityManager } from '@mikro-orm/postgresql';
import { HttpError, createServiceRef } from '../../../core';
import type { Schedule } from '../entities';
import type { Busy } from '../slots';
import type { ScheduleCalendar } from './calendar-point';

const DAY = 86_400_000;
/** How far around a wanted time busy times are read for a booking: its buffers (a day at most) and the alternatives searched (booking/bookings.ts). */
const BOOKING_WINDOW_DAYS = 15;

/** 502: the schedule's calendar could not be read, so no slot is offered or booked on a guess. */
export class CalendarUnavailableError extends HttpError {
  constructor(reason: string) {
    super(502, `The schedule’s calendar could not be read: ${reason}`);
  }
}

/**
 * The appointments plugin's view of the calendar slot: no provider means no calendar
 * sync (schedules refuse a connection); a schedule without a connection has no
 * calendar busy times.
 */
export class CalendarReader {
  constructor(private readonly provider: { calendar: ScheduleCalendar; deps: () => Readonly<Record<string, unknown>> } | null) {}

  /** The problem with `connectionUuid` as a schedule's calendar, or null. */
  async check(em: EntityManager, connectionUuid: string): Promise<string | null> {
    if (!this.provider) return 'calendar sync needs the appointments-calendar plugin, which is not installed';
    return this.provider.calendar.check(em, connectionUuid, this.provider.deps());
  }

  /** The calendar's busy times over [from, to); none without a connection. Call it with no transaction open. */
  async busy(schedule: Pick<Schedule, 'calendarConnectionUuid'>, from: Date, to: Date): Promise<Busy[]> {
    if (!schedule.calendarConnectionUuid || !this.provider) return [];
    try {
      return await this.provider.calendar.busy(schedule.calendarConnectionUuid, from, to, this.provider.deps());
    } catch (error) {
      throw new CalendarUnavailableError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Busy times for booking (or moving to) `startsAt`: around it and ahead, as far as the alternatives are looked for. */
  forBooking(schedule: Pick<Schedule, 'calendarConnectionUuid'>, startsAt: Date): Promise<Busy[]> {
    const now = Date.now();
    return this.busy(schedule, new Date(Math.min(now, startsAt.getTime()) - DAY), new Date(Math.max(now, startsAt.getTime()) + BOOKING_WINDOW_DAYS * DAY));
  }
}

/** The plugin's one CalendarReader (its routes and its runtime tools share it). */
export const calendarReaderRef = createServiceRef<CalendarReader>('appointments.calendarReader');

/**
 * Busy times less an appointment's own time: moving an appointment, its own event in the
 * calendar (written there by the calendar link) must not stand in its way. Cut exactly,
 * so a meeting that overlaps it in the calendar still blocks what lies outside it.
 */
export function withoutOwnTime(busy: Busy[], own: { startsAt: Date; endsAt: Date }): Busy[] {
  const [from, to] = [own.startsAt.getTime(), own.endsAt.getTime()];
  return busy.flatMap((interval) => {
    const [start, end] = [interval.start.getTime(), interval.end.getTime()];
    if (end <= from || start >= to) return [interval];
    return [...(start < from ? [{ start: interval.start, end: own.startsAt }] : []), ...(end > to ? [{ start: own.endsAt, end: interval.end }] : [])];
  });
}
