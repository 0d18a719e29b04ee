import { ValidationError, type EgressRequestOptions, type EgressResponse } from '../../core';
import { expectOk, VendorError } from '../flows';
import {
  calendarMultigetBody,
  calendarQueryBody,
  childNames,
  hrefIn,
  parseMultistatus,
  propfindBody,
  syncCollectionBody,
  textOf,
  type Multistatus,
} from './dav-xml';

/** How users know the vendor in messages: any CalDAV server (Nextcloud, Radicale, ...). */
export const SERVICE = 'The CalDAV server';

/** `context.http` (the connection's Basic header added), or egress with the header for a connection test. */
export interface DavHttp {
  request(url: string | URL, options?: EgressRequestOptions): Promise<EgressResponse>;
}

export interface CalendarInfo {
  /** The collection's path on the server (`/alice/work/`): the `calendar_id` of the app's inputs. */
  id: string;
  name: string;
  ctag: string | null;
  sync_token: string | null;
}

/** A calendar object resource: one `.ics` file of a collection. */
export interface CalendarObject {
  /** Its path on the server: the `event_id` of the app's inputs. */
  href: string;
  etag: string | null;
  ics: string;
}

const XML = { 'content-type': 'application/xml; charset=utf-8' };
const ICS = 'text/calendar; charset=utf-8';

const header = (response: EgressResponse, name: string): string | null => {
  const value = response.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
};

/**
 * The CalDAV calls the app makes, all against the connection's server: every href the
 * server answers or a user gives is resolved against `server_url` and refused when it
 * leaves its origin, so the credentials never go elsewhere.
 */
export function caldavClient(http: DavHttp, serverUrl: string) {
  const base = new URL(serverUrl);

  /** A server href (a path, or a URL of the same origin) as a URL; null when it points elsewhere. */
  const resolve = (href: string): URL | null => {
    let url: URL;
    try {
      url = new URL(href, base);
    } catch {
      return null;
    }
    return url.origin === base.origin ? url : null;
  };
  /** An href as the app names it: the path (percent-encoded as the server sent it). */
  const idOf = (href: string): string | null => resolve(href)?.pathname ?? null;

  async function multistatus(response: EgressResponse, what: string): Promise<Multistatus> {
    expectOk(SERVICE, response, what);
    const parsed = parseMultistatus(response.text());
    if (!parsed) throw new VendorError(SERVICE, response.status, `${SERVICE} answered something that is not a WebDAV multistatus while trying to ${what}: check that server_url is the CalDAV address of the server`);
    return parsed;
  }

  const propfind = async (url: URL, depth: '0' | '1', props: string[], what: string) =>
    multistatus(await http.request(url, { method: 'PROPFIND', headers: { depth, ...XML }, body: propfindBody(props) }), what);

  const report = async (url: URL, depth: '0' | '1', body: string, what: string) => multistatus(await http.request(url, { method: 'REPORT', headers: { depth, ...XML }, body }), what);

  /** The first response's property `name` (PROPFIND Depth 0 answers one response). */
  const firstProp = (answer: Multistatus, name: string): unknown => answer.responses.find((response) => name in response.props)?.props[name];

  const objectsOf = (answer: Multistatus): CalendarObject[] =>
    answer.responses.flatMap((response) => {
      const ics = textOf(response.props['calendar-data']);
      const href = idOf(response.href);
      return ics && href ? [{ href, etag: textOf(response.props.getetag), ics }] : [];
    });

  const client = {
    /**
     * The URL of the user's calendar home (RFC 4791 6.2.1, RFC 5397): `server_url`'s
     * current-user-principal, then its calendar-home-set. A server without them (or a
     * `server_url` that already is the home) is its own home.
     */
    async home(): Promise<URL> {
      const principalAnswer = await propfind(base, '0', ['d:current-user-principal'], 'find the current user principal');
      const principal = resolve(hrefIn(firstProp(principalAnswer, 'current-user-principal')) ?? '') ?? base;
      const homeAnswer = await propfind(principal, '0', ['c:calendar-home-set'], 'find the calendar home');
      return resolve(hrefIn(firstProp(homeAnswer, 'calendar-home-set')) ?? '') ?? principal;
    },

    /** The calendar collections of the home: members whose resourcetype includes CalDAV's `calendar`. */
    async calendars(): Promise<CalendarInfo[]> {
      const home = await client.home();
      const answer = await propfind(home, '1', ['d:resourcetype', 'd:displayname', 'cs:getctag', 'd:sync-token'], 'list the calendars');
      return answer.responses.flatMap((response) => {
        const id = idOf(response.href);
        if (!id || !childNames(response.props.resourcetype).includes('calendar')) return [];
        const fallback = decodeURIComponent(id.replace(/\/+$/, '').split('/').pop() ?? id);
        return [{ id, name: textOf(response.props.displayname)?.trim() || fallback, ctag: textOf(response.props.getctag), sync_token: textOf(response.props['sync-token']) }];
      });
    },

    /**
     * A calendar's URL from the `calendar_id` a step was given; a 422 at `field` when it is
     * not a path of the connection's server.
     */
    calendarUrl(calendarId: string, field = 'config.calendar_id'): URL {
      const url = (calendarId.startsWith('/') && !calendarId.startsWith('//')) || /^https?:\/\//i.test(calendarId) ? resolve(calendarId) : null;
      if (!url) throw new ValidationError({ [field]: ['must be the path of a calendar on the connection’s server (pick one from the calendars list)'] });
      if (!url.pathname.endsWith('/')) url.pathname += '/';
      return url;
    },

    /** An event's URL from its `event_id` (the href the app answered), which must lie in the calendar. */
    eventUrl(calendar: URL, eventId: string, field = 'config.event_id'): URL {
      const url = eventId.startsWith('/') && !eventId.startsWith('//') ? resolve(eventId) : null;
      if (!url || !url.pathname.startsWith(calendar.pathname) || url.pathname === calendar.pathname) {
        throw new ValidationError({ [field]: ['must be the path of an event of the calendar `calendar_id` (pick one from the events list)'] });
      }
      return url;
    },

    /** The events overlapping [from, to) with their data (calendar-query REPORT). */
    async query(calendar: URL, range: { from: Date; to: Date }, summaryContains: string | null = null): Promise<CalendarObject[]> {
      return objectsOf(await report(calendar, '1', calendarQueryBody(range, { withData: true, summaryContains }), 'search the calendar’s events'));
    },

    /** The data of the named events (calendar-multiget REPORT); those gone since are left out. */
    async multiget(calendar: URL, hrefs: string[]): Promise<CalendarObject[]> {
      if (hrefs.length === 0) return [];
      return objectsOf(await report(calendar, '1', calendarMultigetBody(hrefs), 'read the changed events'));
    },

    /** Every member's etag (PROPFIND Depth 1): the change feed of a server without sync-collection. */
    async etags(calendar: URL): Promise<Record<string, string>> {
      const answer = await propfind(calendar, '1', ['d:getetag', 'd:resourcetype'], 'list the calendar’s events');
      const etags: Record<string, string> = {};
      for (const response of answer.responses) {
        const href = idOf(response.href);
        const etag = textOf(response.props.getetag);
        if (href && etag && href !== calendar.pathname && !childNames(response.props.resourcetype).includes('collection')) etags[href] = etag;
      }
      return etags;
    },

    /**
     * What changed since `token` (RFC 6578; null: the current token, nothing to compare).
     * `unsupported` when the server has no sync-collection, `expired` when it no longer
     * knows the token (403/409 valid-sync-token precondition).
     */
    async sync(calendar: URL, token: string | null): Promise<{ token: string; changed: string[] } | 'unsupported' | 'expired'> {
      const response = await http.request(calendar, { method: 'REPORT', headers: { depth: '0', ...XML }, body: syncCollectionBody(token) });
      if (token !== null && (response.status === 403 || response.status === 409) && response.text().includes('valid-sync-token')) return 'expired';
      if ([400, 403, 405, 415, 422, 501].includes(response.status) && !response.text().includes('valid-sync-token')) return 'unsupported';
      const answer = await multistatus(response, 'ask the calendar what changed');
      if (!answer.syncToken) return 'unsupported';
      const changed = answer.responses.flatMap((response) => {
        const href = idOf(response.href);
        const gone = response.status === 404 || (response.status === null && !('getetag' in response.props));
        return href && !gone && href !== calendar.pathname ? [href] : [];
      });
      return { token: answer.syncToken, changed };
    },

    async get(url: URL, what: string): Promise<CalendarObject> {
      const response = expectOk(SERVICE, await http.request(url, { method: 'GET', headers: { accept: 'text/calendar' } }), what);
      return { href: url.pathname, etag: header(response, 'etag'), ics: response.text() };
    },

    /** PUT of a calendar object: `create` refuses to overwrite (If-None-Match: *), otherwise only the version read is replaced (If-Match). */
    async put(url: URL, ics: string, condition: { create: true } | { etag: string | null }, idempotencyKey?: string): Promise<EgressResponse> {
      const guard: Record<string, string> = 'create' in condition ? { 'if-none-match': '*' } : condition.etag ? { 'if-match': condition.etag } : {};
      return http.request(url, { method: 'PUT', headers: { 'content-type': ICS, ...guard }, body: ics, ...(idempotencyKey ? { idempotencyKey } : {}) });
    },

    async delete(url: URL, etag: string | null): Promise<EgressResponse> {
      return http.request(url, { method: 'DELETE', headers: etag ? { 'if-match': etag } : {} });
    },
  };
  return client;
}

export type CaldavClient = ReturnType<typeof caldavClient>;
