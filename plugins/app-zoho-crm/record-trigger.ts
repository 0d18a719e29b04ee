import { Type } from '../../core';
import { defineTrigger } from '../flows';
import { zohoAuth, zohoDeps } from './auth';
import { MAX_PER_PAGE, nextStart, zohoClient, zohoTime, type PageStart, type ZohoClient, type ZohoRecord } from './zoho-api';
import { ModuleName } from './zoho-inputs';

/**
 * Fires once for each record created or changed in a module, by polling: records sorted by
 * `Modified_Time`, asking only for those modified since the cursor (`If-Modified-Since`).
 * The cursor is the newest `Modified_Time` seen and the ids seen at that very second, so
 * records changed in the same second as the cursor are neither lost nor fired twice.
 */

/** Where the next poll takes up; `since` is Zoho's own text of the time (null: the module was empty at the baseline). */
export interface RecordCursor {
  since: string | null;
  ids: string[];
}

/** The engine's cap per poll; more waits for the next poll, which starts where this one stopped. */
const MAX_EVENTS = 500;

const modifiedAt = (record: ZohoRecord): number | null => {
  const at = typeof record.Modified_Time === 'string' ? Date.parse(record.Modified_Time) : NaN;
  return Number.isNaN(at) ? null : at;
};

function readCursor(cursor: unknown): RecordCursor {
  const value = cursor as Partial<RecordCursor> | null;
  const valid =
    value !== null &&
    typeof value === 'object' &&
    (value.since === null || (typeof value.since === 'string' && !Number.isNaN(Date.parse(value.since)))) &&
    Array.isArray(value.ids) &&
    value.ids.every((id) => typeof id === 'string');
  if (!valid) throw new Error(`the Zoho CRM trigger's cursor is not one it returned: ${JSON.stringify(cursor)}`);
  return { since: value.since ?? null, ids: [...value.ids!] };
}

/** The first poll: the newest modification time now, and every record at that second, so none of them fires later. */
async function baseline(client: ZohoClient, module: string): Promise<RecordCursor> {
  const { records } = await client.records(module, { perPage: MAX_PER_PAGE, sortBy: 'Modified_Time', sortOrder: 'desc' });
  const newest = records.find((record) => modifiedAt(record) !== null);
  if (!newest) return { since: null, ids: [] };
  const at = modifiedAt(newest);
  return { since: String(newest.Modified_Time), ids: records.filter((record) => modifiedAt(record) === at).map((record) => record.id) };
}

export const recordCreatedOrUpdated = defineTrigger({
  auth: zohoAuth,
  deps: zohoDeps,
  key: 'record_created_or_updated',
  name: 'Record created or updated',
  description: 'Starts the flow for each record added to or changed in a Zoho CRM module (checked every minute)',
  input: Type.Object({ module: ModuleName }, { additionalProperties: false }),
  outputSample: {
    id: '4876876000000624001',
    Last_Name: 'Smith',
    Email: 'jane.smith@example.com',
    Created_Time: '2024-05-02T10:15:00+05:30',
    Modified_Time: '2024-05-02T11:40:12+05:30',
  },
  poll: {
    intervalSeconds: 60,
    async run({ http, deps, input, logger }, cursor) {
      const client = zohoClient(http, deps.config);
      if (cursor === null) return { events: [], cursor: await baseline(client, input.module) };

      const from = readCursor(cursor);
      const fromMs = from.since === null ? null : Date.parse(from.since);
      const seenAtFrom = new Set(from.ids);
      const next: RecordCursor = { since: from.since, ids: [...from.ids] };
      let nextMs = fromMs;
      const events: ZohoRecord[] = [];
      const fired = new Set<string>();
      // A second early: Zoho's header is to the second, and whether it includes that second is not documented; older ones are dropped below.
      const modifiedSince = fromMs === null ? undefined : zohoTime(fromMs - 1000);

      let start: PageStart | null = { page: 1 };
      while (start) {
        const page = await client.records(input.module, { start, perPage: MAX_PER_PAGE, sortBy: 'Modified_Time', sortOrder: 'asc', modifiedSince });
        for (const record of page.records) {
          const at = modifiedAt(record);
          if (at === null) {
            logger.warn('zoho_crm: a record without Modified_Time was skipped', { module: input.module, record_id: record.id });
            continue;
          }
          if (fromMs !== null && (at < fromMs || (at === fromMs && seenAtFrom.has(record.id)))) continue;
          // A record changed while paging may come twice with the same time.
          if (fired.has(`${record.id}@${at}`)) continue;
          fired.add(`${record.id}@${at}`);
          events.push(record);
          if (nextMs === null || at > nextMs) {
            next.since = String(record.Modified_Time);
            next.ids = [record.id];
            nextMs = at;
          } else if (at === nextMs && !next.ids.includes(record.id)) {
            next.ids.push(record.id);
          }
          if (events.length >= MAX_EVENTS) return { events, cursor: next };
        }
        start = nextStart(page, start);
      }
      return { events, cursor: next };
    },
  },
});

export const recordTriggers = [recordCreatedOrUpdated];
