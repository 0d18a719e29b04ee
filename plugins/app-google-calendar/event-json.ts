import type { GoogleEvent, GoogleEventTime } from './google-types';

/** An event as the app's actions and trigger output it: Google's event, flattened to what a flow reads, in snake_case. */
export interface CalendarEventJson {
  id: string;
  calendar_id: string;
  /** `confirmed`, `tentative` or `cancelled` (deleted). */
  status: string;
  summary: string | null;
  description: string | null;
  location: string | null;
  /** RFC 3339 date-time of a timed event, or the date (yyyy-mm-dd) of an all-day one. */
  start: string | null;
  /** The end: exclusive, so an all-day event of one day ends on the next date (Google's convention). */
  end: string | null;
  all_day: boolean;
  time_zone: string | null;
  attendees: Array<{ email: string | null; name: string | null; response_status: string | null; optional: boolean }>;
  organizer_email: string | null;
  html_link: string | null;
  created: string | null;
  updated: string | null;
  /** For an instance of a recurring event, the recurring event's id. */
  recurring_event_id: string | null;
}

const timeOf = (time: GoogleEventTime | undefined): string | null => time?.dateTime ?? time?.date ?? null;

export function eventJson(calendarId: string, event: GoogleEvent): CalendarEventJson {
  return {
    id: event.id,
    calendar_id: calendarId,
    status: event.status ?? 'confirmed',
    summary: event.summary ?? null,
    description: event.description ?? null,
    location: event.location ?? null,
    start: timeOf(event.start),
    end: timeOf(event.end),
    all_day: event.start?.date !== undefined && event.start.dateTime === undefined,
    time_zone: event.start?.timeZone ?? null,
    attendees: (event.attendees ?? []).map((attendee) => ({
      email: attendee.email ?? null,
      name: attendee.displayName ?? null,
      response_status: attendee.responseStatus ?? null,
      optional: attendee.optional ?? false,
    })),
    organizer_email: event.organizer?.email ?? null,
    html_link: event.htmlLink ?? null,
    created: event.created ?? null,
    updated: event.updated ?? null,
    recurring_event_id: event.recurringEventId ?? null,
  };
}

export const EVENT_SAMPLE: CalendarEventJson = {
  id: '9m4q2k1s0h7e3b6c5d8a0f1g2h',
  calendar_id: 'primary',
  status: 'confirmed',
  summary: 'Intro call with Ada',
  description: 'Booked by the website assistant',
  location: 'Google Meet',
  start: '2025-03-10T10:00:00+01:00',
  end: '2025-03-10T10:30:00+01:00',
  all_day: false,
  time_zone: 'Europe/Paris',
  attendees: [{ email: 'ada@example.com', name: null, response_status: 'needsAction', optional: false }],
  organizer_email: 'sales@example.com',
  html_link: 'https://www.google.com/calendar/event?eid=OW00cTJrMXMwaDdlM2I2YzVkOGEwZjFnMmg',
  created: '2025-03-01T09:12:44.000Z',
  updated: '2025-03-01T09:12:44.512Z',
  recurring_event_id: null,
};
