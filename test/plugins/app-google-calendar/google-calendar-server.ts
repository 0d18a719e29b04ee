import { createHash } from 'node:crypto';
import { startVendorServer, type OAuthServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../plugins/flows/testing-kit';

/**
 * Google Calendar API v3 played on loopback, as Google documents it: the calendar list,
 * events (list with q/timeMin/timeMax/orderBy/singleEvents, page tokens, sync tokens;
 * insert with a client id, patch, delete) and freebusy.query. Strict about what it is
 * sent: a live access token from `oauth` (401 otherwise), page tokens only with the query
 * that made them, a sync token never with the filters Google refuses beside it.
 *
 * Sync tokens are honest: every write is a new version of the event at the next sequence
 * number, a listing reads the calendar as it was at its first page (later pages too), and
 * a sync token answers exactly the events whose version changed after it. Deleted events
 * stay as `status: "cancelled"` versions, which incremental syncs return.
 */

export interface FakeEventData {
  id: string;
  status: 'confirmed' | 'tentative' | 'cancelled';
  summary?: string;
  description?: string;
  location?: string;
  start: { dateTime?: string; date?: string; timeZone?: string };
  end: { dateTime?: string; date?: string; timeZone?: string };
  attendees?: Array<{ email: string; responseStatus?: string; displayName?: string; optional?: boolean }>;
  transparency?: 'opaque' | 'transparent';
  recurrence?: string[];
  recurringEventId?: string;
  created: string;
  updated: string;
  sequence: number;
}

interface Version {
  seq: number;
  data: FakeEventData;
}

interface FakeCalendar {
  entry: { id: string; summary: string; primary?: boolean; accessRole: string; timeZone: string };
  /** Each event's versions, oldest first; insertion order is creation order. */
  events: Map<string, Version[]>;
}

export interface GoogleCalendarState {
  calendars: Map<string, FakeCalendar>;
  /** The sequence number of the latest write. */
  seq: number;
  /** Adds a calendar to the account's calendar list. */
  addCalendar(entry: { id: string; summary: string; primary?: boolean; accessRole?: string; timeZone?: string }): void;
  /** Writes an event as a user would in Google's own UI (a new one, or a new version of one): what the trigger must notice. */
  putEvent(calendarId: string, event: Partial<FakeEventData> & { id: string }): FakeEventData;
  /** Deletes an event as a user would (it becomes a cancelled version). */
  removeEvent(calendarId: string, eventId: string): void;
  /** The latest version of an event, or undefined. */
  eventOf(calendarId: string, eventId: string): FakeEventData | undefined;
  /** Every sync token issued so far answers 410 Gone from now on. */
  expireSyncTokens(): void;
  /** Every page token issued so far answers 400 from now on. */
  expirePageTokens(): void;
  /** The next `times` authorized requests get `reply` (a 429 with Retry-After, a 503) instead of an answer. */
  failNext(reply: VendorReply, times?: number): void;
  /** Moves the server's clock (the `created`/`updated` stamps) forward. */
  advance(ms: number): void;
}

export type GoogleCalendarServer = VendorServer<GoogleCalendarState>;

const EVENT_ID = /^[a-v0-9]{5,1024}$/;
const SEND_UPDATES = ['all', 'externalOnly', 'none'];
const SYNC_RESTRICTIONS = ['q', 'timeMin', 'timeMax', 'orderBy', 'iCalUID', 'updatedMin', 'privateExtendedProperty', 'sharedExtendedProperty'];

/** Google's error body: `{error: {code, message, errors: [{domain, reason, message}]}}`. */
const googleError = (code: number, reason: string, message: string): VendorReply => ({
  status: code,
  body: { error: { code, message, errors: [{ domain: 'global', reason, message }] } },
});

const encodeToken = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
function decodeToken<T>(token: string): T | null {
  try {
    return JSON.parse(Buffer.from(token, 'base64url').toString()) as T;
  } catch {
    return null;
  }
}

/** What makes a page token valid for a request: its query without the page token itself. */
const querySignature = (request: VendorRequest, path: string) =>
  createHash('sha256')
    .update(path + [...request.query.entries()].filter(([name]) => name !== 'pageToken').sort().join('&'))
    .digest('hex')
    .slice(0, 16);

const timeOf = (time: { dateTime?: string; date?: string }): number => Date.parse(time.dateTime ?? `${time.date}T00:00:00Z`);

const publicEvent = (calendarId: string, data: FakeEventData) => ({
  kind: 'calendar#event',
  etag: `"${createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 12)}"`,
  ...data,
  htmlLink: `https://www.google.com/calendar/event?eid=${Buffer.from(`${data.id} ${calendarId}`).toString('base64url')}`,
  iCalUID: `${data.id}@google.com`,
  organizer: { email: calendarId, self: true },
  creator: { email: calendarId, self: true },
});

interface PageTokenValue {
  offset: number;
  snapshot: number;
  signature: string;
  issued: number;
}

export async function startGoogleCalendarServer(options: { oauth: OAuthServer; calendars?: Array<{ id: string; summary: string; primary?: boolean }> }): Promise<GoogleCalendarServer> {
  const { oauth } = options;
  let clockOffset = 0;
  let syncFloor = 0;
  let pageTokensIssued = 0;
  let pageFloor = 0;
  const failures: VendorReply[] = [];
  const now = () => new Date(Date.now() + clockOffset).toISOString();

  const state: GoogleCalendarState = {
    calendars: new Map(),
    seq: 0,
    addCalendar(entry) {
      state.calendars.set(entry.id, { entry: { accessRole: 'owner', timeZone: 'Europe/Paris', ...entry }, events: new Map() });
    },
    putEvent(calendarId, event) {
      const calendar = calendarOf(calendarId);
      if (!calendar) throw new Error(`no calendar ${calendarId}`);
      const versions = calendar.events.get(event.id);
      const previous = versions?.at(-1)?.data;
      const stamp = now();
      const data: FakeEventData = {
        status: 'confirmed',
        start: { dateTime: stamp },
        end: { dateTime: stamp },
        ...previous,
        ...event,
        created: previous?.created ?? stamp,
        updated: stamp,
        sequence: previous ? previous.sequence + 1 : 0,
      };
      write(calendar, data);
      return data;
    },
    removeEvent(calendarId, eventId) {
      const calendar = calendarOf(calendarId);
      const latest = calendar?.events.get(eventId)?.at(-1)?.data;
      if (!calendar || !latest) throw new Error(`no event ${eventId} in ${calendarId}`);
      write(calendar, { ...latest, status: 'cancelled', updated: now() });
    },
    eventOf: (calendarId, eventId) => calendarOf(calendarId)?.events.get(eventId)?.at(-1)?.data,
    expireSyncTokens() {
      syncFloor = state.seq + 1;
    },
    expirePageTokens() {
      pageFloor = pageTokensIssued + 1;
    },
    failNext(reply, times = 1) {
      for (let i = 0; i < times; i++) failures.push(reply);
    },
    advance(ms) {
      clockOffset += ms;
    },
  };
  for (const calendar of options.calendars ?? []) state.addCalendar(calendar);

  function calendarOf(id: string): FakeCalendar | undefined {
    if (id === 'primary') return [...state.calendars.values()].find((calendar) => calendar.entry.primary);
    return state.calendars.get(id);
  }

  function write(calendar: FakeCalendar, data: FakeEventData): void {
    state.seq += 1;
    const versions = calendar.events.get(data.id) ?? [];
    versions.push({ seq: state.seq, data: structuredClone(data) });
    calendar.events.set(data.id, versions);
  }

  /** Each event as it was at `snapshot` (its latest version no newer), in creation order. */
  const viewAt = (calendar: FakeCalendar, snapshot: number): Version[] =>
    [...calendar.events.values()].flatMap((versions) => {
      const version = versions.filter((candidate) => candidate.seq <= snapshot).at(-1);
      return version ? [version] : [];
    });

  /** Every route: a live access token first, then any failure the test queued. */
  const guarded =
    (handler: (request: VendorRequest) => VendorReply) =>
    (request: VendorRequest): VendorReply => {
      if (!oauth.accepts(request.headers.authorization)) return googleError(401, 'authError', 'Invalid Credentials');
      const failure = failures.shift();
      if (failure) return failure;
      return handler(request);
    };

  /** `maxResults` as Google reads it: a whole number from 1 to `max`, `fallback` when absent; null when invalid. */
  const pageSize = (request: VendorRequest, fallback: number, max: number): number | null => {
    const raw = request.query.get('maxResults');
    if (raw === null) return fallback;
    const size = Number(raw);
    return Number.isInteger(size) && size >= 1 && size <= max ? size : null;
  };

  /** The page token of the request, checked against its query; `undefined` when none was sent, null when refused. */
  const pageTokenOf = (request: VendorRequest, signature: string): PageTokenValue | undefined | null => {
    const raw = request.query.get('pageToken');
    if (raw === null) return undefined;
    const token = decodeToken<PageTokenValue>(raw);
    if (!token || token.signature !== signature || token.issued < pageFloor) return null;
    return token;
  };

  const nextPageToken = (offset: number, snapshot: number, signature: string) => encodeToken({ offset, snapshot, signature, issued: ++pageTokensIssued });

  const listEvents = (request: VendorRequest): VendorReply => {
    const calendar = calendarOf(request.params.calendarId);
    if (!calendar) return googleError(404, 'notFound', 'Not Found');
    const query = request.query;
    const size = pageSize(request, 250, 2500);
    if (size === null) return googleError(400, 'invalid', 'Invalid maxResults');
    const syncToken = query.get('syncToken');
    if (syncToken !== null && SYNC_RESTRICTIONS.some((name) => query.has(name))) return googleError(400, 'invalid', 'A sync token cannot be combined with filters');
    if (syncToken !== null && query.get('showDeleted') === 'false') return googleError(400, 'invalid', 'A sync token always shows deleted events');
    if (query.get('orderBy') === 'startTime' && query.get('singleEvents') !== 'true') return googleError(400, 'invalid', 'orderBy=startTime needs singleEvents=true');
    if (query.has('orderBy') && !['startTime', 'updated'].includes(query.get('orderBy')!)) return googleError(400, 'invalid', 'Invalid orderBy');
    for (const name of ['timeMin', 'timeMax']) if (query.has(name) && Number.isNaN(Date.parse(query.get(name)!))) return googleError(400, 'invalid', `Invalid ${name}`);

    let since: number | null = null;
    if (syncToken !== null) {
      const token = decodeToken<{ calendar: string; seq: number }>(syncToken);
      if (!token || token.calendar !== calendar.entry.id || token.seq < syncFloor) return googleError(410, 'fullSyncRequired', 'Sync token is no longer valid, a full sync is required.');
      since = token.seq;
    }
    const signature = querySignature(request, request.path);
    const pageToken = pageTokenOf(request, signature);
    if (pageToken === null) return googleError(400, 'invalid', 'Invalid page token');
    const snapshot = pageToken?.snapshot ?? state.seq;
    const offset = pageToken?.offset ?? 0;

    let items = viewAt(calendar, snapshot);
    if (since !== null) {
      items = items.filter((version) => version.seq > since!).sort((a, b) => a.seq - b.seq);
    } else {
      if (query.get('showDeleted') !== 'true') items = items.filter((version) => version.data.status !== 'cancelled');
      const q = query.get('q')?.toLowerCase();
      if (q) items = items.filter(({ data }) => [data.summary, data.description, data.location].some((text) => text?.toLowerCase().includes(q)));
      if (query.has('timeMin')) items = items.filter(({ data }) => timeOf(data.end) > Date.parse(query.get('timeMin')!));
      if (query.has('timeMax')) items = items.filter(({ data }) => timeOf(data.start) < Date.parse(query.get('timeMax')!));
      if (query.get('orderBy') === 'startTime') items = [...items].sort((a, b) => timeOf(a.data.start) - timeOf(b.data.start));
    }
    const page = items.slice(offset, offset + size);
    const more = offset + size < items.length;
    return {
      body: {
        kind: 'calendar#events',
        summary: calendar.entry.summary,
        timeZone: calendar.entry.timeZone,
        updated: now(),
        items: page.map(({ data }) => publicEvent(calendar.entry.id, data)),
        ...(more ? { nextPageToken: nextPageToken(offset + size, snapshot, signature) } : { nextSyncToken: encodeToken({ calendar: calendar.entry.id, seq: snapshot }) }),
      },
    };
  };

  /** An event body's start and end: both given, each a date-time or a date, the same kind, the end not before the start. */
  const timesProblem = (start: FakeEventData['start'] | undefined, end: FakeEventData['end'] | undefined): string | null => {
    const valid = (time: FakeEventData['start'] | undefined) =>
      time !== undefined && (time.dateTime !== undefined ? !Number.isNaN(Date.parse(time.dateTime)) : /^\d{4}-\d{2}-\d{2}$/.test(time.date ?? ''));
    if (!valid(start) || !valid(end)) return 'Missing or invalid start or end time.';
    if ((start!.dateTime === undefined) !== (end!.dateTime === undefined)) return 'Start and end must both be dates or both be date-times.';
    if (timeOf(end!) < timeOf(start!)) return 'The specified time range is empty.';
    return null;
  };

  const sendUpdatesProblem = (request: VendorRequest) => {
    const value = request.query.get('sendUpdates');
    return value !== null && !SEND_UPDATES.includes(value) ? googleError(400, 'invalid', 'Invalid sendUpdates') : null;
  };

  /**
   * A route on one existing event (PATCH, DELETE): the handler gets its latest version; Google answers
   * 404 when the calendar or event is unknown, 410 when the event is deleted, 400 for a bad `sendUpdates`.
   */
  const onLiveEvent =
    (handler: (request: VendorRequest, calendar: FakeCalendar, latest: FakeEventData) => VendorReply) =>
    (request: VendorRequest): VendorReply => {
      const calendar = calendarOf(request.params.calendarId);
      const latest = calendar?.events.get(request.params.eventId)?.at(-1)?.data;
      if (!calendar || !latest) return googleError(404, 'notFound', 'Not Found');
      if (latest.status === 'cancelled') return googleError(410, 'deleted', 'Resource has been deleted');
      return sendUpdatesProblem(request) ?? handler(request, calendar, latest);
    };

  const eventWrite = (body: Record<string, unknown>): Partial<FakeEventData> => {
    const picked: Partial<FakeEventData> = {};
    for (const key of ['summary', 'description', 'location', 'start', 'end', 'transparency', 'recurrence'] as const) {
      if (body[key] !== undefined) (picked as Record<string, unknown>)[key] = body[key];
    }
    if (Array.isArray(body.attendees)) {
      picked.attendees = (body.attendees as Array<{ email: string }>).map((attendee) => ({ responseStatus: 'needsAction', ...attendee }));
    }
    return picked;
  };

  const server = await startVendorServer<GoogleCalendarState>(
    {
      'GET /calendar/v3/users/me/calendarList': guarded((request) => {
        const size = pageSize(request, 100, 250);
        if (size === null) return googleError(400, 'invalid', 'Invalid maxResults');
        const signature = querySignature(request, request.path);
        const pageToken = pageTokenOf(request, signature);
        if (pageToken === null) return googleError(400, 'invalid', 'Invalid page token');
        const offset = pageToken?.offset ?? 0;
        const entries = [...state.calendars.values()].map((calendar) => ({ kind: 'calendar#calendarListEntry', ...calendar.entry }));
        const more = offset + size < entries.length;
        return {
          body: {
            kind: 'calendar#calendarList',
            items: entries.slice(offset, offset + size),
            ...(more ? { nextPageToken: nextPageToken(offset + size, state.seq, signature) } : { nextSyncToken: encodeToken({ calendarList: true }) }),
          },
        };
      }),

      'GET /calendar/v3/calendars/:calendarId/events': guarded(listEvents),

      'POST /calendar/v3/calendars/:calendarId/events': guarded((request) => {
        const calendar = calendarOf(request.params.calendarId);
        if (!calendar) return googleError(404, 'notFound', 'Not Found');
        const refused = sendUpdatesProblem(request);
        if (refused) return refused;
        const body = request.json<Record<string, unknown>>();
        const id = body.id === undefined ? createHash('sha256').update(`${state.seq}:${Math.random()}`).digest('hex').slice(0, 26) : String(body.id);
        if (!EVENT_ID.test(id)) return googleError(400, 'invalid', 'Invalid resource id value.');
        // Ids are never reused, not even a deleted event's.
        if (calendar.events.has(id)) return googleError(409, 'duplicate', 'The requested identifier already exists.');
        const written = eventWrite(body);
        const problem = timesProblem(written.start, written.end);
        if (problem) return googleError(400, written.start && written.end ? 'timeRangeEmpty' : 'required', problem);
        const stamp = now();
        const data: FakeEventData = { status: 'confirmed', ...(written as Pick<FakeEventData, 'start' | 'end'>), id, created: stamp, updated: stamp, sequence: 0 };
        write(calendar, data);
        return { body: publicEvent(calendar.entry.id, data) };
      }),

      'GET /calendar/v3/calendars/:calendarId/events/:eventId': guarded((request) => {
        const calendar = calendarOf(request.params.calendarId);
        const data = calendar?.events.get(request.params.eventId)?.at(-1)?.data;
        if (!calendar || !data) return googleError(404, 'notFound', 'Not Found');
        return { body: publicEvent(calendar.entry.id, data) };
      }),

      'PATCH /calendar/v3/calendars/:calendarId/events/:eventId': guarded(
        onLiveEvent((request, calendar, latest) => {
          const data: FakeEventData = { ...latest, ...eventWrite(request.json<Record<string, unknown>>()), updated: now(), sequence: latest.sequence + 1 };
          const problem = timesProblem(data.start, data.end);
          if (problem) return googleError(400, 'timeRangeEmpty', problem);
          write(calendar, data);
          return { body: publicEvent(calendar.entry.id, data) };
        }),
      ),

      'DELETE /calendar/v3/calendars/:calendarId/events/:eventId': guarded(
        onLiveEvent((_request, calendar, latest) => {
          write(calendar, { ...latest, status: 'cancelled', updated: now() });
          return { status: 204 };
        }),
      ),

      'POST /calendar/v3/freeBusy': guarded((request) => {
        const body = request.json<{ timeMin?: string; timeMax?: string; items?: Array<{ id?: string }> }>();
        const from = Date.parse(body.timeMin ?? '');
        const to = Date.parse(body.timeMax ?? '');
        if (Number.isNaN(from) || Number.isNaN(to)) return googleError(400, 'required', 'Missing timeMin or timeMax.');
        if (to <= from) return googleError(400, 'timeRangeEmpty', 'The specified time range is empty.');
        if (!Array.isArray(body.items) || body.items.some((item) => typeof item?.id !== 'string')) return googleError(400, 'required', 'Missing items.');
        const calendars: Record<string, unknown> = {};
        for (const { id } of body.items as Array<{ id: string }>) {
          const calendar = calendarOf(id);
          if (!calendar) {
            calendars[id] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
            continue;
          }
          const spans = viewAt(calendar, state.seq)
            .map(({ data }) => data)
            .filter((data) => data.status !== 'cancelled' && data.transparency !== 'transparent')
            .map((data) => ({ start: Math.max(from, timeOf(data.start)), end: Math.min(to, timeOf(data.end)) }))
            .filter((span) => span.end > span.start)
            .sort((a, b) => a.start - b.start);
          const merged: Array<{ start: number; end: number }> = [];
          for (const span of spans) {
            const last = merged.at(-1);
            if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
            else merged.push({ ...span });
          }
          calendars[id] = { busy: merged.map((span) => ({ start: new Date(span.start).toISOString(), end: new Date(span.end).toISOString() })) };
        }
        return { body: { kind: 'calendar#freeBusy', timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), calendars } };
      }),
    },
    { state },
  );
  return server;
}
