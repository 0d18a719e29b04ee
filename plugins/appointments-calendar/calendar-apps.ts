import type { CalendarEventInput } from '../appointments';
import { VendorError, type FlowActions } from '../flows';

/**
 * What the sync needs of a calendar flow app: which calendar of a connection holds the
 * schedule, and the inputs of its `find_free_busy`, `create_event`, `update_event` and
 * `delete_event` actions. Both apps answer `find_free_busy` with `busy: [{start, end}]`
 * and an event with its `id` (Google's event id, CalDAV's href).
 */
export interface CalendarApp {
  uid: string;
  name: string;
  /** The calendar of the connection that appointments go to and busy time is read from. */
  calendarOf(actions: FlowActions, connectionUuid: string): Promise<string>;
  freeBusyInput(calendarId: string, from: Date, to: Date): Record<string, unknown>;
  createInput(calendarId: string, event: CalendarEventInput): Record<string, unknown>;
  updateInput(calendarId: string, eventId: string, event: CalendarEventInput): Record<string, unknown>;
  deleteInput(calendarId: string, eventId: string): Record<string, unknown>;
  /** An error of `delete_event` meaning the event is gone already (deleted by hand): nothing left to delete. */
  isGone(error: unknown): boolean;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const iso = (date: Date) => date.toISOString();

/** Google Calendar: the account's primary calendar; its events keep the schedule's zone. */
const googleCalendar: CalendarApp = {
  uid: 'google_calendar',
  name: 'Google Calendar',
  calendarOf: async () => 'primary',
  freeBusyInput: (calendarId, from, to) => ({ calendar_ids: [calendarId], time_min: iso(from), time_max: iso(to) }),
  createInput: (calendarId, event) => ({
    calendar_id: calendarId,
    summary: clip(event.summary, 1024),
    description: clip(event.description, 8192),
    start: iso(event.start),
    end: iso(event.end),
    time_zone: event.timezone,
  }),
  updateInput: (calendarId, eventId, event) => ({
    calendar_id: calendarId,
    event_id: eventId,
    summary: clip(event.summary, 1024),
    description: clip(event.description, 8192),
    start: iso(event.start),
    end: iso(event.end),
    time_zone: event.timezone,
  }),
  deleteInput: (calendarId, eventId) => ({ calendar_id: calendarId, event_id: eventId }),
  // Google's delete_event answers `deleted: false` for an event gone already: it never throws for that.
  isGone: () => false,
};

/**
 * CalDAV: the account's first calendar by name (the `calendars` option list's order), so
 * a schedule's connection is best an account with one calendar. Events are stored in UTC.
 */
const caldav: CalendarApp = {
  uid: 'caldav',
  name: 'CalDAV',
  async calendarOf(actions, connectionUuid) {
    const [first] = await actions.options('caldav', 'calendars', connectionUuid);
    if (!first) throw new Error('the CalDAV account has no calendar: create one on the server');
    return first.value;
  },
  freeBusyInput: (calendarId, from, to) => ({ calendar_id: calendarId, from: iso(from), to: iso(to) }),
  createInput: (calendarId, event) => ({
    calendar_id: calendarId,
    summary: clip(event.summary, 1000),
    description: clip(event.description, 20_000),
    start: iso(event.start),
    end: iso(event.end),
  }),
  updateInput: (calendarId, eventId, event) => ({
    calendar_id: calendarId,
    event_id: eventId,
    summary: clip(event.summary, 1000),
    description: clip(event.description, 20_000),
    start: iso(event.start),
    end: iso(event.end),
  }),
  deleteInput: (calendarId, eventId) => ({ calendar_id: calendarId, event_id: eventId }),
  isGone: (error) => error instanceof VendorError && (error.status === 404 || error.status === 410),
};

export const CALENDAR_APPS: readonly CalendarApp[] = [googleCalendar, caldav];

export const calendarApp = (appUid: string): CalendarApp | undefined => CALENDAR_APPS.find((app) => app.uid === appUid);
