import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef, type OrmService } from '../../../core';
import { ContactMemory } from './contact-memory.entity';

/** One memory as the runtime puts it into a prompt and the API lists it. */
export interface MemoryItem {
  memory_uuid: string;
  agent_uuid: string;
  session_uuid: string;
  conversation_uuid: string;
  summary: string;
  fields: Record<string, unknown>;
  created_at: string;
  expires_at: string;
}

/** The runtime's read of what an agent remembers about a contact, in the current tenant. */
export interface ContactMemoryReader {
  /** The contact's memories with the agent, newest first, expired ones left out (default limit 5). */
  recall(agentUuid: string, contactUuid: string, options?: { limit?: number }): Promise<MemoryItem[]>;
}

export const contactMemoryRef = createServiceRef<ContactMemoryReader>('memorize.contactMemory');

export const memoryJson = (row: ContactMemory): MemoryItem => ({
  memory_uuid: row.uuid,
  agent_uuid: row.agentUuid,
  session_uuid: row.sessionUuid,
  conversation_uuid: row.conversationUuid,
  summary: row.summary,
  fields: row.fields,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt.toISOString(),
});

/**
 * Memories are only made while memorize is enabled for the agent (summarize-sessions.ts);
 * turning it off stops new ones, and recall reads none while it is off, so turning it
 * off is also how a tenant stops the model seeing them.
 */
export function createContactMemoryReader(orm: OrmService, enabled: (em: EntityManager, agentUuid: string) => Promise<boolean>): ContactMemoryReader {
  return {
    async recall(agentUuid, contactUuid, options = {}) {
      const em = workEm(orm);
      if (!(await enabled(em, agentUuid))) return [];
      const rows = await em.find(
        ContactMemory,
        { agentUuid, contactUuid, expiresAt: { $gt: new Date() } },
        { orderBy: { createdAt: 'desc', uuid: 'desc' }, limit: options.limit ?? 5 },
      );
      return rows.map(memoryJson);
    },
  };
}

/**
 * The request's or message's EntityManager (in its transaction when one is open), or a
 * fresh fork when the caller has neither, e.g. a streamed reply that holds no transaction
 * while the model answers: the tenant still comes from the work context.
 */
function workEm(orm: OrmService): EntityManager {
  const em = orm.em.getContext(false);
  return em.global ? orm.fork() : em;
}
