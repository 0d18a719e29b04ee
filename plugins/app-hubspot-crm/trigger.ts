import { Type } from '../../core';
import { defineTrigger } from '../flows';
import { RECORD_SAMPLE } from './actions';
import { hubspotAuth } from './auth';
import { SEARCH_PAGE_MAX, hubspotClient, recordJson } from './client';
import { hubspotCrmDeps } from './deps';
import { Module, ReturnedProperties } from './inputs';
import { lastModifiedProperty } from './objects';

/** The engine starts at most this many executions a poll; the rest wait for the next poll. */
export const MAX_EVENTS_PER_POLL = 500;
export const POLL_INTERVAL_SECONDS = 60;

/**
 * Where the next poll takes up: the last-change time (ms) of the newest record returned,
 * and the ids of the records returned with exactly that time, so a record sharing the
 * time of the last one seen is returned once, never twice, and never skipped.
 */
export interface RecordCursor {
  since: number;
  ids: string[];
}

function readCursor(cursor: unknown): RecordCursor | null {
  if (cursor === null || cursor === undefined) return null;
  const value = cursor as Partial<RecordCursor>;
  if (typeof value.since !== 'number' || !Number.isFinite(value.since) || !Array.isArray(value.ids) || !value.ids.every((id) => typeof id === 'string')) {
    throw new Error('the trigger’s cursor is not one it wrote: undeploy and deploy the flow again to start from now');
  }
  return { since: value.since, ids: [...value.ids] };
}

const recordCreatedOrUpdated = defineTrigger({
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  key: 'record_created_or_updated',
  name: 'Record created or updated',
  description:
    `Starts the flow for each record of \`module\` created or changed since the flow was deployed, polling HubSpot’s search every ${POLL_INTERVAL_SECONDS} s ` +
    'for records by their last-change time, oldest first. A record changed several times between two polls starts the flow once, as it then is. ' +
    'The output is the record: its properties by internal name (those of `properties`, else HubSpot’s defaults), `id`, `createdAt` and `updatedAt` ' +
    '(equal times, or close ones, tell a new record). HubSpot’s search sees a change a few seconds after it is made, so a change waits for the ' +
    'poll after it is HUBSPOT_POLL_SETTLE_SECONDS old.',
  input: Type.Object({ module: Module, properties: Type.Optional(ReturnedProperties) }, { additionalProperties: false }),
  outputSample: RECORD_SAMPLE,
  poll: {
    intervalSeconds: POLL_INTERVAL_SECONDS,
    async run({ http, deps, input }, previous) {
      const cursor = readCursor(previous);
      // The first poll is the baseline: only what changes from now on starts the flow.
      if (!cursor) return { events: [], cursor: { since: Date.now(), ids: [] } satisfies RecordCursor };
      // Changes younger than this may not be searchable yet: the cursor never passes them.
      const until = Date.now() - deps.config.get('hubspotPollSettleSeconds') * 1000;
      if (until < cursor.since) return { events: [], cursor };

      const client = hubspotClient(http, deps.config.get('hubspotApiBaseUrl'));
      const changed = lastModifiedProperty(input.module);
      const properties = input.properties?.length ? [...new Set([...input.properties, changed])] : undefined;
      const events: unknown[] = [];
      // Every page of one poll asks the same search (HubSpot's `after` is an offset into it); only `next` moves.
      const next: RecordCursor = { since: cursor.since, ids: [...cursor.ids] };
      let after: string | undefined;
      do {
        const page = await client.search(input.module, {
          filterGroups: [
            {
              filters: [
                { propertyName: changed, operator: 'GTE', value: String(cursor.since) },
                { propertyName: changed, operator: 'LTE', value: String(until) },
              ],
            },
          ],
          sorts: [{ propertyName: changed, direction: 'ASCENDING' }],
          ...(properties ? { properties } : {}),
          limit: SEARCH_PAGE_MAX,
          ...(after ? { after } : {}),
        });
        for (const record of page.results) {
          const at = Date.parse(record.properties[changed] ?? record.updatedAt ?? '');
          if (Number.isNaN(at) || at < next.since || (at === next.since && next.ids.includes(record.id))) continue;
          events.push(recordJson(record));
          if (at > next.since) Object.assign(next, { since: at, ids: [record.id] });
          else next.ids.push(record.id);
          if (events.length === MAX_EVENTS_PER_POLL) return { events, cursor: next };
        }
        after = page.paging?.next?.after;
      } while (after);
      return { events, cursor: next };
    },
  },
});

export const hubspotTriggers = [recordCreatedOrUpdated];
