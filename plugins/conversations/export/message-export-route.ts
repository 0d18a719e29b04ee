import { ForbiddenError, JsonText, ValidationError, defineRoute, type FieldErrors, type HttpService, type Static } from '../../../core';
import { decodeCursor, encodeCursor, filtersFingerprint, type CursorPosition, type ExportFilters } from './export-cursor';
import { canonicalInstant } from './export-instant';
import { ExportPageWriter } from './export-page-json';
import { readPage } from './export-page';
import { ExportPageSchema, exportQuery } from './export-schemas';

export const EXPORT_DISABLED = 'Message export is disabled by the workspace policy';

type ExportQuery = Static<ReturnType<typeof exportQuery>>;

/** `GET /api/v1/analytics/messages`: the raw message export, one keyset page at a time. */
export function registerMessageExportRoute(http: HttpService, maxLimit: number): void {
  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/analytics/messages',
      summary: 'Export messages',
      description:
        'One row per message of the workspace with `from <= created_at < to`, sorted by `created_at` then `message_uuid`. ' +
        'Pages are read with an opaque cursor (keyset, not offset): pass `pagination.next_cursor` as `cursor` with the same ' +
        '`channel`, `from` and `to` until `has_more` is false. Reading is stable while messages are added: a page never repeats ' +
        'a row or skips one that existed when the previous page was read; messages added later than the position read so far appear ' +
        'on later pages, earlier ones do not. `created_at` has milliseconds, and microseconds when the stored value has them. ' +
        'The workspace policy (`/api/v1/settings/message-export`) applies: `masked` replaces every `content` with `***`, ' +
        '`disabled` answers 403. A cursor issued for other filters, or altered, is refused with 422 at `cursor`.',
      tags: ['conversations'],
      query: exportQuery(maxLimit),
      response: ExportPageSchema,
      errors: [403],
      handler: async ({ query, em, tenant }) => {
        const { filters, after, limit } = readQuery(query, tenant.uuid);
        const fingerprint = filtersFingerprint(filters);
        const read = await readPage(em, { filters, after, limit }, new ExportPageWriter(limit, (last) => encodeCursor(last, fingerprint)));
        if (read.disabled) throw new ForbiddenError(EXPORT_DISABLED);
        return new JsonText(read.page.json, read.page.release);
      },
    }),
  );
}

/** The checks the schema cannot make, all reported together: the range and the cursor. */
function readQuery(query: ExportQuery, tenantUuid: string): { filters: ExportFilters; after: CursorPosition | null; limit: number } {
  const errors: FieldErrors = {};
  const instant = (name: 'from' | 'to') => {
    if (query[name] === undefined) return null;
    const canonical = canonicalInstant(query[name]);
    if (canonical === null) errors[name] = ['must be an ISO 8601 date-time with a time zone, between the years 0001 and 9999'];
    return canonical;
  };
  const filters: ExportFilters = { tenantUuid, channel: query.channel ?? null, from: instant('from'), to: instant('to') };
  // Canonical instants compare as text.
  if (filters.from !== null && filters.to !== null && filters.from >= filters.to) errors.to = ['must be later than from'];
  let after: CursorPosition | null = null;
  if (query.cursor !== undefined && Object.keys(errors).length === 0) {
    const reading = decodeCursor(query.cursor, filtersFingerprint(filters));
    if ('problem' in reading) errors.cursor = [reading.problem];
    else after = reading.position;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { filters, after, limit: query.limit };
}
