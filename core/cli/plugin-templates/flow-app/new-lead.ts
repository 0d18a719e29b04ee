import { Type } from 'switchboard/core';
import { defineTrigger, Options } from 'switchboard/flows';
import { acmeLeadsClient, credentialsOf } from './client';

/** Leads per poll; the cursor takes up the rest at the next poll (a poll may start at most 500 executions). */
const PAGE = 100;

export const NewLeadInput = Type.Object(
  { list_id: Options('lists', {}, Type.String({ minLength: 1, description: 'The list to watch' })) },
  { additionalProperties: false },
);

/**
 * Polls a list for leads added since the last poll. The cursor is the id of the newest
 * lead seen: the first poll (cursor null) only takes it, so the leads already in the list
 * start nothing; each later poll asks for the leads after it, oldest first, and starts
 * one execution per lead.
 */
export const newLead = defineTrigger({
  key: 'new_lead',
  name: 'New lead',
  description: 'Starts the flow for each lead added to an Acme Leads list (checked every minute)',
  input: NewLeadInput,
  outputSample: { id: 1042, list_id: 'lst_1', email: 'ada@example.com', name: 'Ada Lovelace', tags: [], created_at: '2025-01-06T09:30:00Z' },
  poll: {
    intervalSeconds: 60,
    async run({ input, connection, egress }, cursor) {
      const client = acmeLeadsClient(credentialsOf(connection), egress);
      if (cursor === null) {
        const { items } = await client.leads(input.list_id, { order: 'newest', limit: 1 });
        return { events: [], cursor: items[0]?.id ?? 0 };
      }
      const { items } = await client.leads(input.list_id, { after: Number(cursor), limit: PAGE });
      return { events: items, cursor: items.at(-1)?.id ?? cursor };
    },
  },
});
