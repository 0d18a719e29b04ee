import { Type } from '../../core';
import { Options } from '../flows';

/** A calendar of the connected account, picked from the `calendars` list (`primary` names the account's own). */
export const CalendarId = Options(
  'calendars',
  {},
  Type.String({ minLength: 1, maxLength: 1024, description: 'The calendar: an id from the `calendars` list, or `primary` for the account’s main calendar' }),
);

/** An event of the input's `calendar_id`, picked from the `events` list of that calendar. */
export const EventId = Options(
  'events',
  { params: { calendar_id: '{{config.calendar_id}}' } },
  Type.String({ minLength: 1, maxLength: 1024, description: 'The event, from the `events` list of the calendar, or a reference such as `{{step1.id}}`' }),
);

export const DateTime = (description: string) => Type.String({ format: 'date-time', description });

export const SEND_UPDATES = ['all', 'externalOnly', 'none'] as const;

export const SendUpdates = Type.Optional(
  Type.Unsafe<(typeof SEND_UPDATES)[number]>({
    type: 'string',
    enum: [...SEND_UPDATES],
    description: 'Whom Google emails about the change: `all` guests, `externalOnly` (guests outside the organizer’s domain) or `none` (the default)',
  }),
);

/** The members an event is written with, each optional (create makes some required). */
export const eventFields = {
  summary: Type.String({ minLength: 1, maxLength: 1024, description: 'The event’s title' }),
  description: Type.String({ maxLength: 8192, description: 'Notes shown with the event (plain text or simple HTML)' }),
  location: Type.String({ maxLength: 1024, description: 'Where it takes place: an address or a meeting link' }),
  start: DateTime('When it starts: an RFC 3339 date-time with its offset, such as 2025-03-10T10:00:00+01:00'),
  end: DateTime('When it ends (after `start`): an RFC 3339 date-time with its offset'),
  all_day: Type.Boolean({
    description: 'An all-day event covering the dates of `start` through `end`, both included, as written in them (their times are ignored)',
  }),
  time_zone: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'The IANA time zone the event is shown in, such as Europe/Paris; the calendar’s own when absent',
  }),
  attendees: Type.Array(Type.String({ format: 'email', description: 'A guest’s email address' }), {
    maxItems: 100,
    uniqueItems: true,
    description: 'Guests’ email addresses',
  }),
};
