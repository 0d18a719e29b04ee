import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef, type EventStreamWriter, type OrmService, type TenantRef } from '../../../core';
import type { AgentJson } from '../../agents';
import type { ChatRequestJson, ChatTurnJson } from './chat-schemas';
import type { Turn } from './turn';

/**
 * One turn of a conversation for other plugins (channels, web chat, calls): what
 * `POST /api/v1/agents/{uuid}/chat` does, without HTTP. Run it in the tenant's work
 * (`tenants.run`) and with no transaction of your own open: the turn opens short ones
 * and holds none while the model answers. The errors are the route's: NotFoundError
 * (agent, conversation), ConflictError (an inactive agent, a closed conversation).
 */
export interface ChatTurns {
  /**
   * `options.messageType`: `audio` records the customer's message as a voice note whose content is its transcript (a channel's); default `text`.
   * `options.agent`: the agent as the caller has just read it (`AgentDirectory.getWithoutSlots`), which the turn then does not read again.
   */
  take(tenant: TenantRef, agentUuid: string, request: ChatRequestJson, stream?: EventStreamWriter, options?: TakeOptions): Promise<ChatTurnJson>;
}

export interface TakeOptions {
  messageType?: 'text' | 'audio';
  agent?: AgentJson;
}

export const chatTurnsRef = createServiceRef<ChatTurns>('runtime.chatTurns');

export function createChatTurns(orm: OrmService, turn: Turn): ChatTurns {
  return {
    async take(tenant, agentUuid, request, stream, options = {}) {
      const em = orm.em.fork() as EntityManager;
      const begun = await turn.begin(em, tenant, agentUuid, request, options.messageType, options.agent);
      return turn.run(em, begun, stream);
    },
  };
}
