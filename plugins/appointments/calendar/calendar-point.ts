import type { EntityManager } from '@mikro-orm/postgresql';
import { contributeWithDeps, contributedDepsRef, createExtensionPoint, type DepsMap } from '../../../core';
import type { Busy } from '../slots';

/** One appointment as a calendar event: what the calendar's owner sees. */
export interface CalendarEventInput {
  appointmentUuid: string;
  scheduleUuid: string;
  start: Date;
  end: Date;
  /** The schedule's zone, for calendars that store one. */
  timezone: string;
  summary: string;
  description: string;
}

/**
 * The calendar behind schedules with a `calendar_connection_uuid` (decisions-2.md §7):
 * its busy times block slots, and appointments are written into it. One plugin fills
 * this slot (the link between appointments and the flow apps' calendars); without one,
 * schedules refuse a calendar connection.
 *
 * Every method but `check` is called with no transaction open (they wait on a vendor);
 * `deps` are the services the provider named, as its plugin handed them over.
 */
export interface ScheduleCalendar {
  /** A problem with `connectionUuid` as a schedule's calendar (not the tenant's, not a calendar app), or null. Reads in the request's transaction. */
  check(em: EntityManager, connectionUuid: string, deps: Readonly<Record<string, unknown>>): Promise<string | null>;
  /** The calendar's busy times overlapping [from, to). Throws when the calendar cannot be read: no slot is offered on a guess. */
  busy(connectionUuid: string, from: Date, to: Date, deps: Readonly<Record<string, unknown>>): Promise<Busy[]>;
  deps?: DepsMap;
}

export const scheduleCalendars = createExtensionPoint<ScheduleCalendar>({ id: 'appointments.scheduleCalendars', single: true });

/** Where the plugin filling the slot hands over the services its provider names (one per kernel). */
export const scheduleCalendarDepsRef = contributedDepsRef<ScheduleCalendar>('appointments.scheduleCalendarDeps');

/** The `definePlugin` members of the plugin that fills the slot: `definePlugin({ ...contributeScheduleCalendar(provider) })`. */
export const contributeScheduleCalendar = (provider: ScheduleCalendar) => contributeWithDeps(scheduleCalendars, provider, scheduleCalendarDepsRef);
