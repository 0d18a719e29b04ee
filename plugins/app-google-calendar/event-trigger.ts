import { Type } from '../../core';
import { defineTrigger, expectOk } from '../flows';
import { googleCalendarAuth, googleCalendarDeps } from './auth';
import { VENDOR, calendarApi, type CalendarApi } from './calendar-api';
import { EVENT_SAMPLE, eventJson, type CalendarEventJson } from './event-json';
import type { GoogleEvent, GoogleEventsPage } from './google-types';
import { CalendarId } from './inputs';

/** Changed events asked per page of an incremental sync: two pages fit a poll's 500 events. */
export const SYNC_PAGE_SIZE = 250;
/** The most events one poll returns (the flows plugin refuses more). */
export const MAX_POLL_EVENTS = 500;
/** Events per page of the baseline's full listing (Google's most). */
const BASELINE_PAGE_SIZE = 2500;
/** A calendar listed in more pages than this is a listing that does not end: fail the poll instead of looping. */
const MAX_BASELINE_PAGES = 200;

/**
 * Where the next poll takes up: Google's sync token for the calendar and, while a sync's
 * changes span more polls than one, the page to go on with and the versions (`id@updated`)
 * already emitted from that sync, so a page token Google no longer takes can be replaced
 * by listing the sync again without emitting anything twice.
 */
export interface SyncCursor {
  calendar_id: string;
  sync_token: string;
  page_token?: string;
  emitted?: string[];
}

export type EventChange = CalendarEventJson & { change: 'created' | 'updated' | 'cancelled' };

const versionOf = (event: GoogleEvent) => `${event.id}@${event.updated ?? ''}`;

/** A cursor this trigger wrote for this calendar, or null (the first poll, or the config now names another calendar). */
function readCursor(cursor: unknown, calendarId: string): SyncCursor | null {
  if (typeof cursor !== 'object' || cursor === null) return null;
  const value = cursor as Partial<SyncCursor>;
  if (value.calendar_id !== calendarId || typeof value.sync_token !== 'string' || value.sync_token === '') return null;
  return value as SyncCursor;
}

/**
 * Google stamps `created` and `updated` within moments of each other on an event's first
 * version; a later change moves `updated` only. Two seconds tells the two apart without
 * counting an edit made right after creating as the creation.
 */
function changeOf(event: GoogleEvent): EventChange['change'] {
  if (event.status === 'cancelled') return 'cancelled';
  const created = Date.parse(event.created ?? '');
  const updated = Date.parse(event.updated ?? '');
  return !Number.isNaN(created) && !Number.isNaN(updated) && updated - created < 2000 ? 'created' : 'updated';
}

/** A full listing of the calendar, read only for the sync token on its last page: where the changes start. */
async function baseline(api: CalendarApi, calendarId: string): Promise<SyncCursor> {
  let pageToken: string | undefined;
  for (let pages = 0; pages < MAX_BASELINE_PAGES; pages++) {
    const page = await api.eventsPage(calendarId, { maxResults: BASELINE_PAGE_SIZE, pageToken });
    if (page.nextSyncToken) return { calendar_id: calendarId, sync_token: page.nextSyncToken };
    if (!page.nextPageToken) break;
    pageToken = page.nextPageToken;
  }
  throw new Error(`${VENDOR} listed the events of calendar ${calendarId} without ending with a sync token`);
}

const eventCreatedOrChanged = defineTrigger({
  auth: googleCalendarAuth,
  deps: googleCalendarDeps,
  key: 'event_created_or_changed',
  name: 'Event created or changed',
  description:
    'Starts the flow for each event of the calendar created or changed since the previous poll (every minute), with Google’s sync tokens: an event changed ' +
    'twice between two polls starts it once, with its latest version. Deploying starts from what the calendar holds then: existing events start nothing. ' +
    'The output is the event with `change`: `created`, `updated`, or `cancelled` for a deleted event, which starts the flow only with `include_cancelled`. ' +
    'Recurring events come as the series (an occurrence changed on its own comes with its `recurring_event_id`). Should Google expire the sync token ' +
    '(it may after a long pause), the trigger starts over from the calendar as it is then, and changes made in between start nothing.',
  input: Type.Object(
    {
      calendar_id: CalendarId,
      include_cancelled: Type.Optional(Type.Boolean({ description: 'Also start the flow for deleted events (`change: "cancelled"`); false by default' })),
    },
    { additionalProperties: false },
  ),
  outputSample: { ...EVENT_SAMPLE, change: 'created' } satisfies EventChange,
  poll: {
    intervalSeconds: 60,
    async run(context, cursor) {
      const { calendar_id: calendarId, include_cancelled: includeCancelled = false } = context.input;
      const api = calendarApi(context);
      const from = readCursor(cursor, calendarId);
      if (!from) return { events: [], cursor: await baseline(api, calendarId) };

      const emitted = new Set(from.emitted ?? []);
      const events: EventChange[] = [];
      let pageToken = from.page_token;
      let fresh = 0;
      for (;;) {
        const response = await api.listEvents(calendarId, { syncToken: from.sync_token, pageToken, maxResults: SYNC_PAGE_SIZE });
        if (response.status === 410) {
          // Google expired the sync token: only a full listing gives a new one.
          context.logger.warn('Google Calendar sync token expired: taking a new baseline', { calendarId });
          return { events, cursor: await baseline(api, calendarId) };
        }
        if (response.status === 400 && pageToken !== undefined) {
          // A page token kept from an earlier poll that Google no longer takes: list the sync again, skipping what was emitted.
          pageToken = undefined;
          continue;
        }
        const page = expectOk(VENDOR, response, `list the changed events of calendar ${calendarId}`).json<GoogleEventsPage>();
        for (const item of page.items ?? []) {
          const version = versionOf(item);
          if (emitted.has(version)) continue;
          // Only what was not emitted before counts toward the cap: a sync listed again skips pages already emitted.
          fresh++;
          emitted.add(version);
          if (item.status === 'cancelled' && !includeCancelled) continue;
          events.push({ ...eventJson(calendarId, item), change: changeOf(item) });
        }
        if (page.nextPageToken) {
          pageToken = page.nextPageToken;
          // The next page could hold up to a page of events: leave it to the next poll rather than pass the cap.
          if (fresh + SYNC_PAGE_SIZE > MAX_POLL_EVENTS) return { events, cursor: { ...from, page_token: pageToken, emitted: [...emitted] } };
          continue;
        }
        if (!page.nextSyncToken) throw new Error(`${VENDOR} ended the changes of calendar ${calendarId} without a sync token`);
        return { events, cursor: { calendar_id: calendarId, sync_token: page.nextSyncToken } };
      }
    },
  },
});

export const eventTriggers = [eventCreatedOrChanged];
