import { XMLParser } from 'fast-xml-parser';

/**
 * The WebDAV XML the app sends (PROPFIND and REPORT bodies, RFC 4918, 4791, 6578) and
 * reads (207 multistatus). Servers choose their own namespace prefixes (`d:`, `D:`, a
 * default namespace), so answers are read by local name: the few names the app reads
 * do not collide across the DAV, CalDAV and CalendarServer namespaces.
 */

const NAMESPACES = 'xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/"';
const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Text for an XML element's content or attribute. */
export const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** A PROPFIND asking for properties named with the prefixes above (`d:displayname`, `c:calendar-home-set`). */
export const propfindBody = (props: string[]): string => `${DECLARATION}<d:propfind ${NAMESPACES}><d:prop>${props.map((prop) => `<${prop}/>`).join('')}</d:prop></d:propfind>`;

/** iCalendar UTC date-time form (RFC 5545 3.3.5), which CalDAV time ranges take. */
export const icalUtc = (date: Date): string => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * calendar-query (RFC 4791 7.8) for the VEVENTs overlapping [from, to), with their etag and
 * data; `summaryContains` narrows them by SUMMARY (a case-insensitive text-match, 9.7.5).
 */
export function calendarQueryBody(range: { from: Date; to: Date }, options: { withData: boolean; summaryContains?: string | null }): string {
  const data = options.withData ? '<c:calendar-data/>' : '';
  const match = options.summaryContains ? `<c:prop-filter name="SUMMARY"><c:text-match collation="i;unicode-casemap">${escapeXml(options.summaryContains)}</c:text-match></c:prop-filter>` : '';
  return (
    `${DECLARATION}<c:calendar-query ${NAMESPACES}><d:prop><d:getetag/>${data}</d:prop>` +
    `<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">` +
    `<c:time-range start="${icalUtc(range.from)}" end="${icalUtc(range.to)}"/>${match}` +
    `</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`
  );
}

/** calendar-multiget (RFC 4791 7.9): the etag and data of the named resources. */
export const calendarMultigetBody = (hrefs: string[]): string =>
  `${DECLARATION}<c:calendar-multiget ${NAMESPACES}><d:prop><d:getetag/><c:calendar-data/></d:prop>${hrefs.map((href) => `<d:href>${escapeXml(href)}</d:href>`).join('')}</c:calendar-multiget>`;

/** sync-collection (RFC 6578 3.2): what changed in a collection since `token` (everything, with an empty token). */
export const syncCollectionBody = (token: string | null): string =>
  `${DECLARATION}<d:sync-collection ${NAMESPACES}><d:sync-token>${escapeXml(token ?? '')}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;

/** One `response` of a multistatus: its href, its own status (a 404 of a removed member), and the properties found (200 propstats). */
export interface DavResponse {
  href: string;
  status: number | null;
  props: Record<string, unknown>;
}

export interface Multistatus {
  responses: DavResponse[];
  /** A sync-collection answer's new token (RFC 6578). */
  syncToken: string | null;
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => name === 'response' || name === 'propstat' || name === 'href',
});

type XmlNode = Record<string, unknown>;
const isNode = (value: unknown): value is XmlNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An element's text: a string, or the text of an element that also has attributes or children. */
export function textOf(value: unknown): string | null {
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value === 'string') return value;
  if (isNode(value) && typeof value['#text'] === 'string') return value['#text'];
  return null;
}

/** The first `href` inside a property (`current-user-principal`, `calendar-home-set`). */
export const hrefIn = (value: unknown): string | null => (isNode(value) ? textOf(value.href) : null);

/** The child element names of a property (`resourcetype` holds `collection`, `calendar`). */
export const childNames = (value: unknown): string[] => (isNode(value) ? Object.keys(value).filter((name) => name !== '#text') : []);

/** `HTTP/1.1 200 OK` -> 200. */
const statusCode = (line: unknown): number | null => {
  const match = /^\S+\s+(\d{3})/.exec(textOf(line)?.trim() ?? '');
  return match ? Number(match[1]) : null;
};

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** Reads a 207 body; null when it is not a WebDAV multistatus (a login page, an HTML error). */
export function parseMultistatus(xml: string): Multistatus | null {
  let document: XmlNode;
  try {
    document = parser.parse(xml) as XmlNode;
  } catch {
    return null;
  }
  const root = document.multistatus;
  if (root === undefined) return null;
  const node = isNode(root) ? root : {};
  const responses: DavResponse[] = [];
  for (const entry of asArray(node.response)) {
    if (!isNode(entry)) continue;
    const href = textOf(entry.href);
    if (!href) continue;
    const props: Record<string, unknown> = {};
    for (const propstat of asArray(entry.propstat)) {
      if (!isNode(propstat)) continue;
      const status = statusCode(propstat.status);
      if (status !== null && (status < 200 || status >= 300)) continue;
      if (isNode(propstat.prop)) Object.assign(props, propstat.prop);
    }
    responses.push({ href, status: statusCode(entry.status), props });
  }
  return { responses, syncToken: textOf(node['sync-token']) };
}
