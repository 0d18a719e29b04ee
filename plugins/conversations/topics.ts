import type { AgentWebhookEvent } from '../agents';
import type { Channel, SessionCloseReason } from './channels';

/**
 * Bus topics the conversations plugin publishes, in the writing transaction. The
 * evaluation plugin consumes `session.closed`; flows and webhooks the rest.
 */
export const CONVERSATION_TOPICS = {
  opened: 'conversation.opened',
  closed: 'conversation.closed',
  sessionClosed: 'session.closed',
} as const;

/** Internal: the delayed message that closes an idle session (superseded by each customer message). */
export const SESSION_TIMEOUT_TOPIC = 'conversations.session-timeout';

/** Payload of `conversation.opened` and `conversation.closed`: the conversation as the API returns it. */
export interface ConversationEvent {
  uuid: string;
  agent_uuid: string;
  contact_uuid: string | null;
  channel: Channel;
  channel_label: string | null;
  status: 'open' | 'closed';
  started_at: string;
  ended_at: string | null;
}

/** Payload of `session.closed`. */
export interface SessionClosedEvent {
  session_uuid: string;
  conversation_uuid: string;
  agent_uuid: string;
  contact_uuid: string | null;
  channel: Channel;
  started_at: string;
  ended_at: string;
  message_count: number;
  reason: SessionCloseReason;
}

/** The agent webhook event this plugin adds to the agents plugin's catalog. */
export const conversationStatusEvent: AgentWebhookEvent = {
  name: 'conversation_status',
  description: 'A conversation of the agent opened or closed: `{uuid, agent_uuid, contact_uuid, channel, channel_label, status, started_at, ended_at}`',
};
