import { Type, ValidationError } from '../../core';
import { defineOptions, type FlowOption } from '../flows';
import { googleCalendarAuth, googleCalendarDeps } from './auth';
import { calendarApi } from './calendar-api';
import type { GoogleCalendarListEntry, GoogleEvent } from './google-types';
import { CalendarId } from './inputs';

/** Calendars per page asked of Google (its most for calendarList.list). */
export const CALENDARS_PAGE_SIZE = 250;
/** Events per page of the `events` list. */
export const EVENTS_PAGE_SIZE = 100;
/**
 * The calendar list has no search of its own: a page is filtered here. Pages that match
 * nothing are skipped, up to this many, so a search answers something when it can.
 */
const MAX_PAGES_SEARCHED = 5;

const NO_CONNECTION = { state: 'unavailable' as const, message: 'Choose a Google Calendar connection first' };

const calendarLabel = (entry: GoogleCalendarListEntry): string => {
  const name = entry.summaryOverride ?? entry.summary ?? entry.id;
  return entry.primary ? `${name} (primary)` : name;
};

/** `Title · 2025-03-10 10:00` (the start as the event states it, in its own offset), or the date of an all-day event. */
const eventLabel = (event: GoogleEvent): string => {
  const start = event.start?.dateTime?.slice(0, 16).replace('T', ' ') ?? event.start?.date;
  const title = event.summary?.trim() || '(no title)';
  return start ? `${title} · ${start}` : title;
};

/**
 * The `events` list's cursor: Google's page token with the `timeMin` of the first page,
 * since a page token only holds for the query that made it (and "now" moves on).
 */
const encodeEventsCursor = (timeMin: string, pageToken: string) => Buffer.from(JSON.stringify({ t: timeMin, p: pageToken })).toString('base64url');
function decodeEventsCursor(cursor: string): { timeMin: string; pageToken: string } {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { t?: unknown; p?: unknown };
    if (typeof value.t === 'string' && typeof value.p === 'string') return { timeMin: value.t, pageToken: value.p };
  } catch {
    // Not a cursor of this list: refused below.
  }
  throw new ValidationError({ cursor: ['is not a cursor this list returned'] });
}

const calendars = defineOptions({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  kind: 'calendars',
  description: 'The calendars on the account’s calendar list (value: the calendar id); searched by name, paged with Google’s page token',
  params: Type.Object({}, { additionalProperties: false }),
  searchable: true,
  async load(context) {
    if (!context.connection) return NO_CONNECTION;
    const api = calendarApi(context);
    const search = context.search?.trim().toLowerCase() || null;
    let pageToken = context.cursor;
    const options: FlowOption[] = [];
    for (let pages = 0; pages < MAX_PAGES_SEARCHED; pages++) {
      const page = await api.calendarList(pageToken, CALENDARS_PAGE_SIZE);
      for (const entry of page.items ?? []) {
        const label = calendarLabel(entry);
        if (!search || label.toLowerCase().includes(search)) options.push({ label, value: entry.id });
      }
      pageToken = page.nextPageToken ?? null;
      if (!search || options.length > 0 || !pageToken) break;
    }
    return { options, nextCursor: pageToken };
  },
});

const events = defineOptions({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  kind: 'events',
  description:
    'The upcoming and ongoing events of `params.calendar_id` in start order, recurring events as their single occurrences (value: the event id); ' +
    'searched by Google’s free-text search, paged with its page token',
  params: Type.Object({ calendar_id: CalendarId }, { additionalProperties: false }),
  searchable: true,
  async load(context) {
    if (!context.connection) return NO_CONNECTION;
    const { timeMin, pageToken } = context.cursor ? decodeEventsCursor(context.cursor) : { timeMin: new Date().toISOString(), pageToken: undefined };
    const page = await calendarApi(context).eventsPage(context.params.calendar_id, {
      q: context.search?.trim() || undefined,
      singleEvents: true,
      orderBy: 'startTime',
      timeMin,
      maxResults: EVENTS_PAGE_SIZE,
      pageToken,
    });
    return {
      options: (page.items ?? []).map((event) => ({ label: eventLabel(event), value: event.id })),
      nextCursor: page.nextPageToken ? encodeEventsCursor(timeMin, page.nextPageToken) : null,
    };
  },
});

export const calendarOptions = [calendars, events];
