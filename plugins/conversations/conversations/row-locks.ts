import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { Conversation, ConversationSession } from '../entities';

/*
 * Every change to a conversation's sessions happens under row locks taken in one
 * order, conversation then session, so concurrent writers queue instead of racing:
 * - a message locks its conversation, so ten concurrent first messages open one
 *   session (the others wait, then find it), and then the open session, so a timeout
 *   closing it at that moment cannot leave the message in a closed session;
 * - close locks the conversation, then its open session;
 * - the idle-session closer locks only the session (one lock: no deadlock possible).
 * `FOR UPDATE ... WHERE status = 'open'` re-checks the condition on the newest row
 * version after waiting, so a session closed meanwhile is not found.
 */

/** The conversation, locked until the transaction ends; null when the tenant has none. */
export const lockConversation = (em: EntityManager, uuid: string) =>
  em.findOne(Conversation, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** The conversation's open session, locked until the transaction ends; null when none is open. */
export const lockOpenSession = (em: EntityManager, conversationUuid: string) =>
  em.findOne(ConversationSession, { conversationUuid, status: 'open' }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** A session by id, locked until the transaction ends. */
export const lockSession = (em: EntityManager, uuid: string) =>
  em.findOne(ConversationSession, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
