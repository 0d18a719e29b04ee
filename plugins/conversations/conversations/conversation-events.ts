import type { ConversationSession } from '../entities';
import type { ConversationFields } from '../views';
import type { SessionCloseReason } from '../channels';
import type { ConversationEvent, SessionClosedEvent } from '../topics';

/** The payload of `conversation.opened`, `.transferred` and `.closed` (what the `conversation_status` webhook describes). */
export const conversationEvent = (row: ConversationFields, reason: string | null): ConversationEvent => ({
  uuid: row.uuid,
  agent_uuid: row.agentUuid,
  contact_uuid: row.contactUuid,
  channel: row.channel,
  channel_label: row.channelLabel,
  status: row.status,
  started_at: row.startedAt.toISOString(),
  ended_at: row.endedAt ? row.endedAt.toISOString() : null,
  reason,
});

/** The payload of `session.closed`, of a session that has just closed. */
export const sessionClosedEvent = (row: ConversationSession, reason: SessionCloseReason): SessionClosedEvent => ({
  session_uuid: row.uuid,
  conversation_uuid: row.conversationUuid,
  agent_uuid: row.agentUuid,
  contact_uuid: row.contactUuid,
  channel: row.channel,
  started_at: row.startedAt.toISOString(),
  ended_at: (row.endedAt ?? new Date()).toISOString(),
  message_count: row.messageCount,
  reason,
});
