import {
  Component,
  NotFoundError,
  PageQuery,
  ResourceId,
  Timestamp,
  Type,
  Uuid,
  deleteRoute,
  findByUuid,
  listRoute,
  pageWindow,
  type AnyRoute,
} from '../../../core';
import type { ContactDirectory } from '../../contacts';
import { ContactMemory } from './contact-memory.entity';
import { memoryJson } from './contact-memory-service';

const tags = ['memorize'];

const MemorySchema = Component(
  'ContactMemory',
  Type.Object({
    memory_uuid: Uuid(),
    agent_uuid: Uuid(),
    session_uuid: Uuid(),
    conversation_uuid: Uuid(),
    summary: Type.String({ description: 'What the session taught the agent about the contact' }),
    fields: Type.Record(Type.String(), Type.Unknown(), { description: 'The memorize `fields` the model found, by key' }),
    created_at: Timestamp(),
    expires_at: Timestamp(),
  }),
);

const ContactParams = Type.Object({ uuid: ResourceId('contacts.contact', 'The contact') });
const MemoryParams = Type.Object({ uuid: ContactParams.properties.uuid, memoryUuid: ResourceId('memorize.memory', 'The memory') });
const MemoryQuery = PageQuery({ agent_uuid: Type.Optional(ResourceId('agents.agent', 'Only what this agent remembers')) });

/** What agents remember about a contact, and forgetting one memory (a contact's request to be forgotten). */
export const memoryRoutes = (contacts: ContactDirectory): AnyRoute[] => [listMemories(contacts), forgetMemory];

const listMemories = (contacts: ContactDirectory) =>
  listRoute({
    path: '/api/v1/contacts/:uuid/memories',
    summary: 'List what agents remember about a contact',
    description:
      'Summaries of the contact’s closed sessions, kept while memorize is enabled for the agent and put into the contact’s later conversations ' +
      'with that agent, newest first; expired ones (`retention_days`) are not listed.',
    tags,
    params: ContactParams,
    query: MemoryQuery,
    errors: [404],
    item: MemorySchema,
    page: async ({ params, query, em }) => {
      if (!(await contacts.get([params.uuid])).has(params.uuid)) throw new NotFoundError('Contact not found');
      const where = { contactUuid: params.uuid, expiresAt: { $gt: new Date() }, ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}) };
      const [rows, total] = await em.findAndCount(ContactMemory, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
      return [rows.map(memoryJson), total];
    },
  });

const forgetMemory = deleteRoute({
  path: '/api/v1/contacts/:uuid/memories/:memoryUuid',
  summary: 'Forget one memory of a contact',
  description: 'Deleting the contact forgets all of them.',
  tags,
  params: MemoryParams,
  message: 'Memory deleted',
  remove: async ({ params, em }) => {
    const row = await findByUuid(em, ContactMemory, params.memoryUuid);
    if (!row || row.contactUuid !== params.uuid) throw new NotFoundError('Memory not found');
    await em.nativeDelete(ContactMemory, { uuid: row.uuid });
  },
});
