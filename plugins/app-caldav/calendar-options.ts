import { Type, ValidationError } from '../../core';
import { defineOptions } from '../flows';
import { caldavAuth } from './auth';
import { clientFor, DAY_MS, unavailableFor } from './connection';
import { readEvent } from './ical';

/**
 * The option lists of the calendar kind (spec options table): `calendars`, and `events`
 * of one calendar. CalDAV has no paging of its own: calendars are few and come whole;
 * events are searched by the server (a SUMMARY text-match) and paged here by offset.
 */

const PAGE_SIZE = 50;
/** The window of events offered: a month back, a year ahead (a calendar-query needs a range to stay small). */
const PAST_DAYS = 30;
const FUTURE_DAYS = 365;

export const calendarsOptions = defineOptions({
  auth: caldavAuth,
  kind: 'calendars',
  description: 'The calendars of the CalDAV account (the collections of its calendar home); the value is the calendar’s path on the server',
  params: Type.Object({}, { additionalProperties: false }),
  searchable: true,
  async load(context) {
    if (!context.connection) return { state: 'unavailable', message: 'Choose a CalDAV connection first' };
    try {
      const calendars = await clientFor(context).calendars();
      const search = context.search?.trim().toLowerCase() ?? '';
      const options = calendars
        .filter((calendar) => !search || calendar.name.toLowerCase().includes(search))
        .map((calendar) => ({ label: calendar.name, value: calendar.id }))
        .sort((a, b) => a.label.localeCompare(b.label));
      return { options, nextCursor: null };
    } catch (error) {
      return unavailableFor(error);
    }
  },
});

/** `2026-03-01 14:30 UTC`, or the date alone for an all-day event. */
const when = (start: string | null): string => (start === null ? 'no date' : start.length === 10 ? start : `${start.slice(0, 16).replace('T', ' ')} UTC`);

const offsetOf = (cursor: string | null): number => {
  if (cursor === null) return 0;
  if (!/^\d{1,6}$/.test(cursor)) throw new ValidationError({ cursor: ['is not a cursor this list answered'] });
  return Number(cursor);
};

export const eventsOptions = defineOptions({
  auth: caldavAuth,
  kind: 'events',
  description: `The events of a calendar from ${PAST_DAYS} days ago to ${FUTURE_DAYS} days ahead, soonest first, labelled with their title and start; the value is the event’s path on the server`,
  params: Type.Object(
    { calendar_id: Type.String({ minLength: 1, description: 'The calendar (its path, from the calendars list)' }) },
    { additionalProperties: false },
  ),
  searchable: true,
  async load(context) {
    if (!context.connection) return { state: 'unavailable', message: 'Choose a CalDAV connection first' };
    const offset = offsetOf(context.cursor);
    const client = clientFor(context);
    const calendar = client.calendarUrl(context.params.calendar_id, 'params.calendar_id');
    const now = Date.now();
    try {
      const objects = await client.query(calendar, { from: new Date(now - PAST_DAYS * DAY_MS), to: new Date(now + FUTURE_DAYS * DAY_MS) }, context.search?.trim() || null);
      const events = objects
        .map((object) => ({ href: object.href, event: readEvent(object.ics) }))
        .flatMap(({ href, event }) => (event ? [{ href, event }] : []))
        .sort((a, b) => (a.event.start ?? '').localeCompare(b.event.start ?? '') || a.href.localeCompare(b.href));
      const page = events.slice(offset, offset + PAGE_SIZE);
      return {
        options: page.map(({ href, event }) => ({ label: `${event.summary?.trim() || '(no title)'} · ${when(event.start)}`, value: href })),
        nextCursor: offset + PAGE_SIZE < events.length ? String(offset + PAGE_SIZE) : null,
      };
    } catch (error) {
      return unavailableFor(error);
    }
  },
});
