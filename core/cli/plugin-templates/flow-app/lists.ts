import { Type } from 'switchboard/core';
import { defineOptions } from 'switchboard/flows';
import { acmeLeadsAuth } from './auth';
import { acmeLeadsClient, AcmeLeadsError } from './client';

/**
 * The account's lead lists, to pick the `list_id` of the trigger and the action from.
 * Acme Leads searches and pages them itself (`searchable`), so the user's search and the
 * cursor of the previous page go to it. A connection it refuses is a state the user can
 * act on, not an error.
 */
export const lists = defineOptions({
  auth: acmeLeadsAuth,
  kind: 'lists',
  description: 'The lead lists of the Acme Leads account',
  params: Type.Object({}, { additionalProperties: false }),
  searchable: true,
  async load({ connection, egress, search, cursor }) {
    if (!connection) return { state: 'unavailable', message: 'Choose an Acme Leads connection first' };
    try {
      const page = await acmeLeadsClient(connection.credentials, egress).lists(search, cursor);
      return { options: page.items.map((list) => ({ label: list.name, value: list.id })), nextCursor: page.next_cursor };
    } catch (error) {
      if (error instanceof AcmeLeadsError && error.status === 401) return { state: 'unavailable', message: 'Acme Leads refuses this connection’s API key: update the connection' };
      throw error;
    }
  },
});
