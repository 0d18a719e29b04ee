import type { EgressRequestOptions, EgressResponse } from '../../core';
import { expectOk, type ConnectionHttp, type ResolvedFlowAppDeps } from '../flows';
import type { googleCalendarDeps } from './auth';
import type { GoogleCalendarListPage, GoogleEvent, GoogleEventsPage, GoogleFreeBusy } from './google-types';

/** The vendor as users know it, in every error message. */
export const VENDOR = 'Google Calendar';

/** What every piece of the app's code has to call Google with. */
export interface CalendarCallContext {
  http: ConnectionHttp;
  deps: ResolvedFlowAppDeps<typeof googleCalendarDeps>;
}

type Query = EgressRequestOptions['query'];

/**
 * Google Calendar API v3 as the app uses it. Every call goes through `context.http`
 * (credentials applied, tokens kept fresh, short 429s waited out). The calls whose
 * failures the caller tells apart (a sync token gone, an event id taken or deleted)
 * return the raw response; the others check it with `expectOk`.
 */
export function calendarApi({ http, deps }: CalendarCallContext) {
  const base = `${deps.config.get('googleCalendarApiBaseUrl').replace(/\/+$/, '')}/calendar/v3`;
  const events = (calendarId: string) => `${base}/calendars/${encodeURIComponent(calendarId)}/events`;
  const event = (calendarId: string, eventId: string) => `${events(calendarId)}/${encodeURIComponent(eventId)}`;
  const checked = async <T>(what: string, url: string, options: EgressRequestOptions = {}): Promise<T> => expectOk(VENDOR, await http.request(url, options), what).json<T>();

  return {
    /** A page of the user's calendar list (the list has no search: callers filter the page). */
    calendarList: (pageToken: string | null, maxResults: number) =>
      checked<GoogleCalendarListPage>('list calendars', `${base}/users/me/calendarList`, { query: { maxResults, pageToken } }),

    /** A page of a calendar's events, unchecked: a 410 to a sync token means "sync again from scratch". */
    listEvents: (calendarId: string, query: Query): Promise<EgressResponse> => http.request(events(calendarId), { query }),

    /** A page of a calendar's events, checked. */
    eventsPage: (calendarId: string, query: Query) => checked<GoogleEventsPage>(`list the events of calendar ${calendarId}`, events(calendarId), { query }),

    getEvent: (calendarId: string, eventId: string) => checked<GoogleEvent>(`read event ${eventId}`, event(calendarId, eventId)),

    /** Unchecked: a 409 means the id is taken (a retried create), which the caller resolves. */
    insertEvent: (calendarId: string, body: Record<string, unknown>, query: Query, idempotencyKey: string): Promise<EgressResponse> =>
      http.request(events(calendarId), { method: 'POST', body, query, idempotencyKey }),

    patchEvent: (calendarId: string, eventId: string, body: Record<string, unknown>, query: Query) =>
      checked<GoogleEvent>(`update event ${eventId}`, event(calendarId, eventId), { method: 'PATCH', body, query }),

    /** Unchecked: 404 and 410 mean the event is gone already, which is no failure of a delete. */
    deleteEvent: (calendarId: string, eventId: string, query: Query): Promise<EgressResponse> => http.request(event(calendarId, eventId), { method: 'DELETE', query }),

    freeBusy: (body: Record<string, unknown>) => checked<GoogleFreeBusy>('query free/busy time', `${base}/freeBusy`, { method: 'POST', body }),
  };
}

export type CalendarApi = ReturnType<typeof calendarApi>;
