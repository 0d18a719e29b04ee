import { Type } from '../../core';
import { defineTrigger, Options } from '../flows';
import { caldavAuth } from './auth';
import type { CaldavClient } from './caldav-client';
import { clientFor } from './connection';
import { EVENT_SAMPLE, eventOutput } from './event-actions';
import { readEvent } from './ical';

/** Events read per poll (calendar-multiget); more changes wait in the cursor for the next polls. */
const BATCH = 200;

/**
 * Where the next poll takes up. `sync`: the collection's sync-token (RFC 6578, Nextcloud
 * and Radicale have it) and the changed hrefs not read yet. `etags`: for a server
 * without sync-collection, every event's etag, compared with the next listing.
 */
type Cursor = { mode: 'sync'; token: string; pending: string[] } | { mode: 'etags'; etags: Record<string, string> };

function readCursor(value: unknown): Cursor | null {
  if (typeof value !== 'object' || value === null) return null;
  const cursor = value as Record<string, unknown>;
  if (cursor.mode === 'sync' && typeof cursor.token === 'string' && Array.isArray(cursor.pending)) {
    return { mode: 'sync', token: cursor.token, pending: cursor.pending.filter((href): href is string => typeof href === 'string') };
  }
  if (cursor.mode === 'etags' && typeof cursor.etags === 'object' && cursor.etags !== null) return { mode: 'etags', etags: cursor.etags as Record<string, string> };
  return null;
}

/** The calendar as it is now, with nothing to report: the sync-token when the server has one, else every etag. */
async function baseline(client: CaldavClient, calendar: URL): Promise<Cursor> {
  const answer = await client.sync(calendar, null);
  if (typeof answer === 'object') return { mode: 'sync', token: answer.token, pending: [] };
  return { mode: 'etags', etags: await client.etags(calendar) };
}

export const eventCreatedOrChanged = defineTrigger({
  auth: caldavAuth,
  key: 'event_created_or_changed',
  name: 'Event created or changed',
  description:
    'Starts the flow once for each event added to the calendar or changed in it since the previous poll (an event changed several times between two polls, once); the first poll only notes where the calendar stands',
  input: Type.Object(
    { calendar_id: Options('calendars', {}, Type.String({ minLength: 1, maxLength: 2048, description: 'The calendar to watch: its path on the server, from the calendars list' })) },
    { additionalProperties: false },
  ),
  outputSample: EVENT_SAMPLE,
  poll: {
    intervalSeconds: 120,
    async run(context, previous) {
      const client = clientFor(context);
      const calendarId = context.input.calendar_id;
      const calendar = client.calendarUrl(calendarId);
      const cursor = readCursor(previous);
      if (!cursor) return { events: [], cursor: await baseline(client, calendar) };

      let changed: string[];
      let next: (read: Set<string>) => Cursor;
      if (cursor.mode === 'sync') {
        const answer = await client.sync(calendar, cursor.token);
        if (typeof answer !== 'object') {
          // The server forgot the token (or dropped sync support): what changed meanwhile is unknown, so start over from now.
          context.logger.warn('caldav: the sync-token was refused, taking a new baseline', { calendar: calendarId, reason: answer });
          return { events: [], cursor: await baseline(client, calendar) };
        }
        changed = [...new Set([...cursor.pending, ...answer.changed])];
        next = (read) => ({ mode: 'sync', token: answer.token, pending: changed.filter((href) => !read.has(href)) });
      } else {
        const now = await client.etags(calendar);
        changed = Object.keys(now).filter((href) => now[href] !== cursor.etags[href]);
        // Changes not read this time keep their old etag (or none) so the next poll finds them again.
        next = (read) => ({
          mode: 'etags',
          etags: Object.fromEntries(Object.entries(now).flatMap(([href, etag]) => (read.has(href) || !changed.includes(href) ? [[href, etag]] : href in cursor.etags ? [[href, cursor.etags[href]]] : []))),
        });
      }
      const batch = changed.slice(0, BATCH);
      const objects = await client.multiget(calendar, batch);
      const events = objects.filter((object) => readEvent(object.ics) !== null).map((object) => eventOutput(calendarId, object));
      return { events, cursor: next(new Set(batch)) };
    },
  },
});
