import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, type EntityData } from '@mikro-orm/core';
import { boundQuery, preparedStatement } from '../../../core';
import { Conversation, ConversationSession } from '../entities';
import type { ConversationFields } from '../views';

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

/** A locked conversation as read: the entity's fields, without the ORM (a turn locks its conversation twice and changes it rarely). */
export type LockedConversation = ConversationFields & Pick<Conversation, 'tenantUuid'>;

/** A lock held in a transaction: the row as read, and the entity once a writer asked for it (then the one truth). */
interface Held {
  row: EntityData<Conversation>;
  plain: LockedConversation;
  entity?: Conversation;
}

/** Conversations each EntityManager has locked, by the transaction that holds the locks. */
const held = new WeakMap<EntityManager, { transaction: unknown; conversations: Map<string, Held> }>();

/** Timestamps come as the driver gives them: a Date, or the text MikroORM's connection leaves them as. */
const dateOf = (value: unknown) => (value instanceof Date ? value : new Date(value as string));

async function lockRow(em: EntityManager, tenantUuid: string, uuid: string): Promise<Held | null> {
  const transaction = em.getTransactionContext();
  const locks = held.get(em);
  const mine = locks && locks.transaction === transaction ? locks.conversations.get(uuid) : undefined;
  if (mine) return mine;
  // A prepared statement: the lock is taken twice a chat turn, and MikroORM would build the query anew each time.
  const [row] = await boundQuery<Record<string, unknown>>(em, LOCK_CONVERSATION, [tenantUuid, uuid]);
  if (!row) return null;
  const plain: LockedConversation = {
    uuid: row.uuid as string,
    tenantUuid: row.tenant_uuid as string,
    agentUuid: row.agent_uuid as string,
    contactUuid: (row.contact_uuid as string | null) ?? null,
    channel: row.channel as Conversation['channel'],
    channelLabel: (row.channel_label as string | null) ?? null,
    status: row.status as Conversation['status'],
    startedAt: dateOf(row.started_at),
    endedAt: row.ended_at === null ? null : dateOf(row.ended_at),
    createdAt: dateOf(row.created_at),
    updatedAt: dateOf(row.updated_at),
  };
  const lock: Held = { row: row as EntityData<Conversation>, plain };
  if (transaction !== undefined) {
    if (!locks || locks.transaction !== transaction) held.set(em, { transaction, conversations: new Map([[uuid, lock]]) });
    else locks.conversations.set(uuid, lock);
  }
  return lock;
}

/**
 * The conversation, locked until the transaction ends; null when the tenant (the current one) has none.
 * Asked again in the same transaction (a turn checks the conversation, then records
 * into it), the row it holds is returned without a second round trip: under the lock,
 * no other transaction can have changed it. What it returns is only read: a writer that
 * changes the conversation asks lockConversationEntity.
 */
export async function lockConversation(em: EntityManager, tenantUuid: string, uuid: string): Promise<LockedConversation | null> {
  const lock = await lockRow(em, tenantUuid, uuid);
  return lock ? (lock.entity ?? lock.plain) : null;
}

/** As lockConversation, as an entity of `em` to change and flush (mapped once per transaction; later locks return it). */
export async function lockConversationEntity(em: EntityManager, tenantUuid: string, uuid: string): Promise<Conversation | null> {
  const lock = await lockRow(em, tenantUuid, uuid);
  if (!lock) return null;
  lock.entity ??= em.map(Conversation, lock.row);
  return lock.entity;
}

/** The conversation's open session, locked until the transaction ends; null when none is open. */
export const lockOpenSession = (em: EntityManager, conversationUuid: string) =>
  em.findOne(ConversationSession, { conversationUuid, status: 'open' }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** A session by id, locked until the transaction ends. */
export const lockSession = (em: EntityManager, uuid: string) =>
  em.findOne(ConversationSession, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
