import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError, boundQuery, createServiceRef, newUuid, preparedStatement, type BusService, type FieldErrors, type TenantService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { DELIVERY_STATUS_RANK, type Channel, type DeliveryStatus, type MessageType, type Sender } from '../channels';
import type { ContactCheck } from '../contact-check';
import { Conversation } from '../entities';
import type { SessionizationProvider } from '../sessionization-policy';
import { CONVERSATION_TOPICS } from '../topics';
import { conversationJson, type ConversationJson, type MessageJson } from '../views';
import { conversationEvent } from './conversation-events';
import { lockConversation, lockConversationEntity, lockOpenSession, type LockedConversation } from './row-locks';
import { armIdleTimer, closeSession } from './session-lifecycle';

export const CONVERSATION_NOT_FOUND = 'Conversation not found';

/** One message to record: who, what kind, what; `createdAt` defaults to the time of recording. */
export interface RecordInput {
  sender: Sender;
  messageType?: MessageType;
  content: string;
  createdAt?: Date;
}

/**
 * How conversations are written, for the routes of this plugin and for other plugins
 * (the agent runtime): one code path, so a message recorded by a chat turn opens
 * sessions, counts, arms the idle timer and publishes exactly as one recorded over the
 * API. Every method works in the caller's transaction (`em`), in the current tenant,
 * and publishes in it: nothing is announced unless that transaction commits.
 */
export interface ConversationWriter {
  /** Opens a conversation (as POST /conversations does: same checks, publishes conversation.opened). */
  open(em: EntityManager, input: { agentUuid: string; contactUuid: string | null; channel: Channel; channelLabel?: string | null }): Promise<ConversationJson>;
  /** The conversation as it is now, without a lock (checks that a later transaction repeats under its lock); null when not found in the current tenant. */
  find(em: EntityManager, conversationUuid: string): Promise<ConversationJson | null>;
  /** Locks the conversation row (select ... for update) in em's transaction; null when not found in the current tenant. */
  lock(em: EntityManager, conversationUuid: string): Promise<ConversationJson | null>;
  /** Records a message exactly as POST /conversations/{uuid}/messages does (session opened if none, message_count, idle timer, events); refuses a closed conversation with ConflictError. */
  record(em: EntityManager, conversationUuid: string, input: RecordInput): Promise<MessageJson>;
  /** As `record` for several messages of the conversation at once, in order, under one lock and one flush. */
  recordMany(em: EntityManager, conversationUuid: string, inputs: readonly RecordInput[]): Promise<MessageJson[]>;
  /**
   * Sets status transferred or closed (closed closes the open session like POST .../close does) and publishes the status event with the reason.
   * `open` takes back a `transferred` conversation whose hand-over did not happen (a call's transfer nobody answered), published as
   * `conversation.opened` with its reason; a closed conversation stays closed (ConflictError).
   */
  setStatus(em: EntityManager, conversationUuid: string, status: 'open' | 'transferred' | 'closed', reason?: string): Promise<ConversationJson>;
  /** Messages of a conversation, oldest first, the last `limit` of them (for the model's history). */
  history(em: EntityManager, conversationUuid: string, limit: number): Promise<MessageJson[]>;
  /** Customer messages of the conversation created at or after `since`. */
  countCustomerMessagesSince(em: EntityManager, conversationUuid: string, since: Date): Promise<number>;
  /**
   * Sets what became of a message sent through a channel (the channels plugin), only
   * forward (DELIVERY_STATUS_RANK: a late `delivered` leaves `read`); `error` is kept for
   * `failed` only. True when the message changed; false when it is not in the current
   * tenant or already at that stage or past it.
   */
  setDelivery(em: EntityManager, messageUuid: string, status: DeliveryStatus, error?: string | null): Promise<boolean>;
}

export const conversationWriterRef = createServiceRef<ConversationWriter>('conversations.writer');

export interface ConversationWriterDeps {
  bus: BusService;
  tenants: TenantService;
  agents: AgentDirectory;
  sessionization: SessionizationProvider;
  /** The contacts plugin's check of `contact_uuid`; none when it is not installed. */
  contacts?: ContactCheck;
}

/** Oldest first: the order messages were recorded in (ids are time-ordered within a millisecond). */
export const OLDEST_FIRST = { createdAt: 'asc', uuid: 'asc' } as const;

/*
 * A turn's reads of its conversation, as prepared statements: MikroORM would join the
 * conversation and the session to apply their tenant filters too, and build the query
 * anew on every turn (a profile of bench/runtime put half the kernel's time in it).
 */
/** Exported for its test (the plan of a turn's history read). */
export const HISTORY = preparedStatement(
  'conversations.history',
  'select uuid, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content, created_at, delivery_status, delivery_error ' +
    'from conversation_messages where tenant_uuid = $1 and conversation_uuid = $2 order by created_at desc, uuid desc limit $3',
);
/** The rank of the stored status (null: never sent through a channel) against the new one's, in one statement: no read-then-write race. */
const RANK_SQL = `case "delivery_status" ${Object.entries(DELIVERY_STATUS_RANK).map(([status, rank]) => `when '${status}' then ${rank}`).join(' ')} else -1 end`;
const SET_DELIVERY = preparedStatement(
  'conversations.set-delivery',
  `update conversation_messages set delivery_status = $3, delivery_error = $4, updated_at = now() where tenant_uuid = $1 and uuid = $2 and ${RANK_SQL} < $5 returning uuid`,
);
const CUSTOMER_MESSAGES_SINCE = preparedStatement(
  'conversations.customer-messages-since',
  "select count(*)::int as n from conversation_messages where tenant_uuid = $1 and conversation_uuid = $2 and sender = 'customer' and created_at >= $3",
);

/**
 * The messages ($7, a JSON array) into the session the statement's `session` CTE names,
 * with the conversation's columns ($1-$6); the rest of each statement below builds that
 * CTE. Both answer the session's uuid, or no row when there was none to record into.
 */
const INTO_SESSION =
  'inserted as (insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type, content) ' +
  'select m.uuid, $1, m.created_at, m.created_at, $2, session.uuid, $3, $4, $5, $6, m.sender, m.message_type, m.content ' +
  'from session, jsonb_to_recordset($7::jsonb) as m(uuid uuid, created_at timestamptz, sender text, message_type text, content text) returning 1) ' +
  'select uuid from session';
/**
 * Messages into the conversation's open session, with the session's counts, in one round
 * trip (the hot path of every turn): the UPDATE locks the open session (the order of
 * row-locks.ts: the caller holds the conversation's) and, should a timeout have closed it
 * meanwhile, re-checks `status = 'open'` on the newest row and finds none; then nothing is
 * inserted and the caller opens a session with OPEN_SESSION_WITH. $8 counts the messages;
 * $9 is the last customer message's time, null when no customer wrote; $10 is now.
 */
const RECORD_INTO_OPEN_SESSION = preparedStatement(
  'conversations.record-into-open-session',
  'with session as (update conversation_sessions set message_count = message_count + $8, ' +
    'last_customer_message_at = coalesce($9::timestamptz, last_customer_message_at), updated_at = $10 ' +
    "where tenant_uuid = $1 and conversation_uuid = $2 and status = 'open' returning uuid), " +
    INTO_SESSION,
);
/**
 * A new open session of the conversation with its messages, in one round trip: the
 * first nine parameters of RECORD_INTO_OPEN_SESSION, then the session's id ($10) and its
 * start, the first message's time ($11).
 */
const OPEN_SESSION_WITH = preparedStatement(
  'conversations.open-session-with',
  'with session as (insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, contact_uuid, channel, status, started_at, last_customer_message_at, message_count) ' +
    "values ($10, $1, $11, $11, $2, $4, $3, $5, 'open', $11, $9::timestamptz, $8) returning uuid), " +
    INTO_SESSION,
);
const FIND = preparedStatement(
  'conversations.find',
  'select uuid, agent_uuid, contact_uuid, channel, channel_label, status, started_at, ended_at, created_at, updated_at from conversations where tenant_uuid = $1 and uuid = $2',
);

/** Timestamps come as the driver gives them (a Date, or the text MikroORM's connection leaves them as). */
type Stamp = Date | string;
const isoOf = (stamp: Stamp) => new Date(stamp).toISOString();
type MessageRow = Omit<MessageJson, 'message_uuid' | 'created_at'> & { uuid: string; created_at: Stamp };
const rowJson = ({ uuid, created_at, ...row }: MessageRow): MessageJson => ({ message_uuid: uuid, ...row, created_at: isoOf(created_at) });
type ConversationRow = Omit<ConversationJson, 'started_at' | 'ended_at' | 'created_at' | 'updated_at'> & { started_at: Stamp; ended_at: Stamp | null; created_at: Stamp; updated_at: Stamp };
const conversationRowJson = (row: ConversationRow): ConversationJson => ({
  ...row,
  started_at: isoOf(row.started_at),
  ended_at: row.ended_at === null ? null : isoOf(row.ended_at),
  created_at: isoOf(row.created_at),
  updated_at: isoOf(row.updated_at),
});

export function createConversationWriter({ bus, tenants, agents, sessionization, contacts }: ConversationWriterDeps): ConversationWriter {
  const locked = async (em: EntityManager, uuid: string): Promise<LockedConversation> => {
    const conversation = await lockConversation(em, tenants.require().uuid, uuid);
    if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    return conversation;
  };

  /**
   * Messages of one conversation, in the order given, under one lock of the conversation
   * and of its open session, in one flush and one `publishMany` (a turn's closing lines
   * and tool calls). Ids grow within a process, so equal timestamps keep that order.
   */
  const recordMany = async (em: EntityManager, conversationUuid: string, inputs: readonly RecordInput[]): Promise<MessageJson[]> => {
    if (inputs.length === 0) return [];
    const conversation = await locked(em, conversationUuid);
    // A transferred conversation goes on (a person may take over); only a closed one is over.
    if (conversation.status === 'closed') throw new ConflictError('Conversation is closed');
    // Taken under the lock, so messages of one conversation are stamped in the order they are recorded.
    const now = new Date();
    const messages = messagesOf(conversation, inputs, now);
    const rows = JSON.stringify(messages.map((m) => ({ uuid: m.message_uuid, created_at: m.created_at, sender: m.sender, message_type: m.message_type, content: m.content })));
    const lastCustomer = messages.findLast((message) => message.sender === 'customer')?.created_at ?? null;
    const conversationParams = [tenants.require().uuid, conversation.uuid, conversation.contactUuid, conversation.agentUuid, conversation.channel, conversation.channelLabel, rows, messages.length, lastCustomer, now];
    let [session] = await boundQuery<{ uuid: string }>(em, RECORD_INTO_OPEN_SESSION, conversationParams);
    const opened = !session;
    // None open: the statement above found none under the conversation's lock, which every
    // writer that opens a session holds, so none can have opened since. A new one, with the
    // messages, in one statement (the partial unique index would refuse a second open one).
    if (opened) [session] = await boundQuery<{ uuid: string }>(em, OPEN_SESSION_WITH, [...conversationParams.slice(0, 9), newUuid(), messages[0].created_at]);
    for (const message of messages) message.session_uuid = session.uuid;
    // A new session's idle clock starts with it; an open one's restarts with each customer message.
    if (opened || lastCustomer !== null) await armIdleTimer(bus, session.uuid, await sessionization.forAgent(em, conversation.agentUuid));
    await bus.publishMany(CONVERSATION_TOPICS.messageCreated, messages);
    return messages;
  };

  /** The messages as they will be recorded (`session_uuid` filled in once known). */
  const messagesOf = (conversation: LockedConversation, inputs: readonly RecordInput[], now: Date): MessageJson[] =>
    inputs.map((input) => ({
      message_uuid: newUuid(),
      conversation_uuid: conversation.uuid,
      session_uuid: '',
      contact_uuid: conversation.contactUuid,
      agent_uuid: conversation.agentUuid,
      channel: conversation.channel,
      channel_label: conversation.channelLabel,
      sender: input.sender,
      message_type: input.messageType ?? 'text',
      content: input.content,
      created_at: (input.createdAt ?? now).toISOString(),
      delivery_status: null,
      delivery_error: null,
    }));

  return {
    async open(em, input) {
      const errors: FieldErrors = {};
      if (!(await agents.exists(input.agentUuid))) errors.agent_uuid = ['is not an agent of this tenant'];
      if (input.contactUuid && contacts && !(await contacts.exists(em, input.contactUuid))) errors.contact_uuid = ['is not a contact of this tenant'];
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);
      const now = new Date();
      const conversation = em.create(Conversation, {
        agentUuid: input.agentUuid,
        contactUuid: input.contactUuid ?? null,
        channel: input.channel,
        channelLabel: input.channelLabel ?? null,
        startedAt: now,
        createdAt: now,
        updatedAt: now,
      });
      await em.flush();
      await bus.publish(CONVERSATION_TOPICS.opened, conversationEvent(conversation, null));
      return conversationJson(conversation);
    },

    async find(em, conversationUuid) {
      const [row] = await boundQuery<ConversationRow>(em, FIND, [tenants.require().uuid, conversationUuid]);
      return row ? conversationRowJson(row) : null;
    },

    async lock(em, conversationUuid) {
      const conversation = await lockConversation(em, tenants.require().uuid, conversationUuid);
      return conversation ? conversationJson(conversation) : null;
    },

    async record(em, conversationUuid, input) {
      const [message] = await recordMany(em, conversationUuid, [input]);
      return message;
    },

    recordMany: (em, conversationUuid, inputs) => recordMany(em, conversationUuid, inputs),

    async setStatus(em, conversationUuid, status, reason) {
      const conversation = await lockConversationEntity(em, tenants.require().uuid, conversationUuid);
      if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
      // Asking again for the status it has changes nothing and announces nothing.
      if (conversation.status === status) return conversationJson(conversation);
      if (conversation.status === 'closed') throw new ConflictError('Conversation is closed');
      const now = new Date();
      if (status === 'closed') {
        const session = await lockOpenSession(em, conversation.uuid);
        if (session) await closeSession(em, bus, session, 'conversation_closed', now);
        conversation.endedAt = now;
      }
      conversation.status = status;
      await em.flush();
      const topic = status === 'closed' ? CONVERSATION_TOPICS.closed : status === 'open' ? CONVERSATION_TOPICS.opened : CONVERSATION_TOPICS.transferred;
      await bus.publish(topic, conversationEvent(conversation, reason ?? null));
      return conversationJson(conversation);
    },

    async history(em, conversationUuid, limit) {
      if (!(limit >= 1)) return [];
      // The newest `limit`, read newest first, then turned to oldest first; rows, not entities: read to be shown, never changed.
      const rows = await boundQuery<MessageRow>(em, HISTORY, [tenants.require().uuid, conversationUuid, Math.floor(limit)]);
      return rows.reverse().map(rowJson);
    },

    async countCustomerMessagesSince(em, conversationUuid, since) {
      const [row] = await boundQuery<{ n: number }>(em, CUSTOMER_MESSAGES_SINCE, [tenants.require().uuid, conversationUuid, since]);
      return row.n;
    },

    async setDelivery(em, messageUuid, status, error) {
      const reason = status === 'failed' ? (error ?? null) : null;
      const rows = await boundQuery<{ uuid: string }>(em, SET_DELIVERY, [tenants.require().uuid, messageUuid, status, reason, DELIVERY_STATUS_RANK[status]]);
      return rows.length > 0;
    },
  };
}
