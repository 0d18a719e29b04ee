import { ConversationMessage, ConversationSession } from './entities';
import { createServiceRef, type OrmService } from '../../core';
import { messageJson, sessionJson, type SessionJson, type SessionWithMessagesJson } from './views';

/**
 * The conversations plugin's read API for other plugins (the evaluation plugin reads
 * transcripts through it), for the current tenant, inside the current transaction.
 */
export interface ConversationReader {
  /** The session without its messages; null when the tenant has no such session. */
  session(sessionUuid: string): Promise<SessionJson | null>;
  /** The session with its messages, oldest first; null when the tenant has no such session. */
  sessionWithMessages(sessionUuid: string): Promise<SessionWithMessagesJson | null>;
}

export const conversationReaderRef = createServiceRef<ConversationReader>('conversations.reader');

export function createConversationReader(orm: OrmService): ConversationReader {
  return {
    async session(sessionUuid) {
      const session = await orm.em.findOne(ConversationSession, { uuid: sessionUuid });
      return session ? sessionJson(session) : null;
    },
    async sessionWithMessages(sessionUuid) {
      const session = await orm.em.findOne(ConversationSession, { uuid: sessionUuid });
      if (!session) return null;
      const messages = await orm.em.find(ConversationMessage, { sessionUuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
      return { ...sessionJson(session), messages: messages.map(messageJson) };
    },
  };
}
