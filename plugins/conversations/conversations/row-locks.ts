import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, type EntityData } from '@mikro-orm/core';
import { boundQuery, preparedStatement } from '../../../core';
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

/** Every column, named: a prepared statement's result must not change shape under it. */
const LOCK_CONVERSATION = preparedStatement(
  'conversations.lock',
  'select uuid, tenant_uuid, created_at, updated_at, agent_uuid, contact_uuid, channel, channel_label, status, started_at, ended_at ' +
    'from conversations where tenant_uuid = $1 and uuid = $2 for update',
);

/** Conversations each EntityManager has locked, by the transaction that holds the locks. */
const held = new WeakMap<EntityManager, { transaction: unknown; conversations: Map<string, Conversation> }>();

/**
 * The conversation, locked until the transaction ends; null when the tenant (the current one) has none.
 * Asked again in the same transaction (a turn checks the conversation, then records
 * into it), the row it holds is returned without a second round trip: under the lock,
 * no other transaction can have changed it.
 */
export async function lockConversation(em: EntityManager, tenantUuid: string, uuid: string): Promise<Conversation | null> {
  const transaction = em.getTransactionContext();
  const locks = held.get(em);
  const mine = locks && locks.transaction === transaction ? locks.conversations.get(uuid) : undefined;
  if (mine) return mine;
  // A prepared statement mapped to the entity: the lock is taken twice a chat turn, and MikroORM would build the query anew each time.
  const [row] = await boundQuery<EntityData<Conversation>>(em, LOCK_CONVERSATION, [tenantUuid, uuid]);
  const conversation = row ? em.map(Conversation, row) : null;
  if (conversation && transaction !== undefined) {
    if (!locks || locks.transaction !== transaction) held.set(em, { transaction, conversations: new Map([[uuid, conversation]]) });
    else locks.conversations.set(uuid, conversation);
  }
  return conversation;
}

/** The conversation's open session, locked until the transaction ends; null when none is open. */
export const lockOpenSession = (em: EntityManager, conversationUuid: string) =>
  em.findOne(ConversationSession, { conversationUuid, status: 'open' }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** A session by id, locked until the transaction ends. */
export const lockSession = (em: EntityManager, uuid: string) =>
  em.findOne(ConversationSession, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
