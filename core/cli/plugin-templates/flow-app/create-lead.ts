import { Type } from 'switchboard/core';
import { defineAction, Options } from 'switchboard/flows';
import { acmeLeadsAuth } from './auth';
import { acmeLeadsClient, credentialsOf } from './client';

export const CreateLeadInput = Type.Object(
  {
    list_id: Options('lists', {}, Type.String({ minLength: 1, description: 'The list to add the lead to' })),
    email: Type.String({ format: 'email', description: 'The lead’s email address' }),
    name: Type.Optional(Type.String({ maxLength: 200, description: 'The lead’s name' })),
  },
  { additionalProperties: false },
);

/**
 * Adds a lead to a list; its output is the lead as Acme Leads answers it. The step's
 * `idempotencyKey` is the same on every retry of this step in this execution: sent as
 * `Idempotency-Key`, a step run again after a crash does not add the lead twice.
 */
export const createLead = defineAction({
  auth: acmeLeadsAuth,
  key: 'create_lead',
  name: 'Create lead',
  description: 'Adds a lead to an Acme Leads list',
  input: CreateLeadInput,
  outputSample: { id: 1043, list_id: 'lst_1', email: 'grace@example.com', name: 'Grace Hopper', created_at: '2025-01-06T09:31:00Z' },
  run: ({ input, connection, egress, idempotencyKey }) =>
    acmeLeadsClient(credentialsOf(connection), egress).createLead(input.list_id, { email: input.email, ...(input.name ? { name: input.name } : {}) }, idempotencyKey),
});
