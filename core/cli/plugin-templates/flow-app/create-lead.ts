import { Type } from 'switchboard/core';
import { defineAction, Options } from 'switchboard/flows';
import { acmeLeadsAuth } from './auth';
import { acmeLeadsClient, credentialsOf, type NewAcmeLead } from './client';

const listId = Options('lists', {}, Type.String({ minLength: 1, description: 'The list to add the lead to' }));
const email = Type.String({ format: 'email', description: 'The lead’s email address' });
const name = Type.Optional(Type.String({ maxLength: 200, description: 'The lead’s name' }));

/** What each version of the action shares: a step pins its version, not these. */
const action = {
  auth: acmeLeadsAuth,
  key: 'create_lead',
  name: 'Create lead',
  description: 'Adds a lead to an Acme Leads list',
  outputSample: { id: 1043, list_id: 'lst_1', email: 'grace@example.com', name: 'Grace Hopper', tags: ['webinar'], created_at: '2025-01-06T09:31:00Z' },
};

const leadOf = (input: { email: string; name?: string }, tags: string[]): NewAcmeLead => ({ email: input.email, tags, ...(input.name ? { name: input.name } : {}) });

/** The input of version 1, which took one tag. */
export const CreateLeadInputV1 = Type.Object(
  { list_id: listId, email, name, tag: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'A tag for the lead' })) },
  { additionalProperties: false },
);

/**
 * Version 1, as the first release shipped it. Flows deployed with it keep running it, so
 * it stays listed until no deployed flow needs it (then drop it from the app's `actions`).
 */
export const createLeadV1 = defineAction({
  ...action,
  version: 1,
  input: CreateLeadInputV1,
  run: ({ input, connection, egress, idempotencyKey }) =>
    acmeLeadsClient(credentialsOf(connection), egress).createLead(input.list_id, leadOf(input, input.tag ? [input.tag] : []), idempotencyKey),
});

export const CreateLeadInput = Type.Object(
  { list_id: listId, email, name, tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 10, description: 'Tags for the lead' })) },
  { additionalProperties: false },
);

/**
 * Adds a lead to a list; its output is the lead as Acme Leads answers it. The step's
 * `idempotencyKey` is the same on every retry of this step in this execution: sent as
 * `Idempotency-Key`, a step run again after a crash does not add the lead twice.
 *
 * Version 2 takes several `tags` where version 1 took one `tag`: a step's config of
 * version 1 no longer validates, so this is a new version, not an edit of version 1.
 * New steps get it; `migrate` turns a version-1 config into a version-2 one when a step
 * is upgraded. The config may hold references (`{{#<step uuid>.path}}`): it moves the tag
 * whole, never parsing it.
 */
export const createLead = defineAction({
  ...action,
  version: 2,
  input: CreateLeadInput,
  migrate: ({ tag, ...config }) => ({ ...config, tags: tag === undefined ? [] : [tag] }),
  run: ({ input, connection, egress, idempotencyKey }) =>
    acmeLeadsClient(credentialsOf(connection), egress).createLead(input.list_id, leadOf(input, input.tags ?? []), idempotencyKey),
});
