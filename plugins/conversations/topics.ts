import type { AgentWebhookEvent } from '../agents';
import type { Channel, ConversationStatus, SessionCloseReason } from './channels';
import type { MessageJson } from './views';

/**
 * Bus topics the conversations plugin publishes, in the writing transaction. The
 * evaluation plugin consumes `session.closed`; flows and agent webhooks the rest.
 */
export const CONVERSATION_TOPICS = {
  opened: 'conversation.opened',
  transferred: 'conversation.transferred',
  closed: 'conversation.closed',
  messageCreated: 'conversation.message_created',
  sessionClosed: 'session.closed',
} as const;

/** Internal: the delayed message that closes an idle session (superseded by each customer message). */
export const SESSION_TIMEOUT_TOPIC = 'conversations.session-timeout';

/**
 * Why a conversation changed status, as its status events say: `api` (the close
 * route), `agent` (the agent ended it or handed it on), `guard` (a guard rule fired),
 * `routing` (a routing rule), `idle`... Free text so a new path needs no change here;
 * null for `conversation.opened`.
 */
export type ConversationStatusReason = string;

/**
 * Payload of `conversation.opened`, `conversation.transferred` and `conversation.closed`:
 * the conversation as the API returns it (without created_at/updated_at), plus `reason`.
 */
export interface ConversationEvent {
  uuid: string;
  agent_uuid: string;
  contact_uuid: string | null;
  channel: Channel;
  channel_label: string | null;
  status: ConversationStatus;
  started_at: string;
  ended_at: string | null;
  /** Always present in what this plugin publishes (optional so older payloads still type-check). */
  reason?: ConversationStatusReason | null;
}

/** Payload of `conversation.message_created`: the message as the API returns it (it names its conversation and agent). */
export type MessageCreatedEvent = MessageJson;

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

/** The agent a published payload is about (both payloads carry `agent_uuid`); null for anything else. */
const agentOf = (payload: { agent_uuid?: unknown } | null | undefined): string | null =>
  typeof payload?.agent_uuid === 'string' ? payload.agent_uuid : null;

/** The agent webhook events this plugin adds to the agents plugin's catalog, with the topics the delivery plugin sends them from. */
export const conversationStatusEvent: AgentWebhookEvent = {
  name: 'conversation_status',
  description:
    'A conversation of the agent opened, was transferred or closed: `{uuid, agent_uuid, contact_uuid, channel, channel_label, status ("open"|"transferred"|"closed"), ' +
    'started_at, ended_at, reason}`; `reason` says why it changed (`api`, `agent`, `guard`, `routing`, ...), null on opening; `open` with a reason is a ' +
    'transferred conversation taken back (`call_transfer_failed`: nobody answered the call’s transfer)',
  source: {
    topics: [CONVERSATION_TOPICS.opened, CONVERSATION_TOPICS.transferred, CONVERSATION_TOPICS.closed],
    agentUuid: agentOf,
    data: (payload: ConversationEvent) => ({ ...payload, status: payload.status, reason: payload.reason ?? null }),
  },
};

export const messageCreatedEvent: AgentWebhookEvent = {
  name: 'message_created',
  description:
    'A message was recorded on a conversation of the agent (the customer’s, the agent’s, a system event or a tool call): ' +
    '`{message_uuid, conversation_uuid, session_uuid, contact_uuid, agent_uuid, channel, channel_label, sender, message_type ("text"|"audio"|"event"|"tool"), content, created_at, delivery_status, delivery_error}`',
  source: {
    topics: [CONVERSATION_TOPICS.messageCreated],
    agentUuid: agentOf,
    data: (payload: MessageCreatedEvent) => payload,
  },
};
