import { Component, ReadOnly, Timestamp, Type, Uuid, type Static } from '../../core';
import { CHANNELS, CONVERSATION_STATUSES, DELIVERY_STATUSES, MESSAGE_TYPES, SENDERS, SESSION_CLOSE_REASONS, SESSION_STATUSES } from './channels';
import type { Conversation, ConversationMessage, ConversationSession } from './entities';

const literals = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((value) => Type.Literal(value)), { description }) as unknown as ReturnType<typeof Type.String>;

export const ChannelSchema = literals(CHANNELS, '`voice` and `chatapp_call` are calls (judged by the `voice` analyzers); the others are text');
export const SenderSchema = literals(SENDERS, 'Who wrote or said it');
export const MessageTypeSchema = literals(
  MESSAGE_TYPES,
  '`text`, `audio` (content is a transcript or a URL), `event` (e.g. a transfer) or `tool` (a tool the agent called: its name, arguments and result)',
);
const DeliveryStatusSchema = literals(DELIVERY_STATUSES, 'What became of a message sent through a channel');
const StatusSchema = literals(CONVERSATION_STATUSES, '`open`; `transferred` (handed on by a routing or guard rule; still takes messages); `closed` (takes none)');
const SessionStatusSchema = literals(SESSION_STATUSES, '`open` until closed');
const NullableUuid = (description: string) => Type.Union([Uuid(), Type.Null()], { description });
const NullableTimestamp = (description: string) => Type.Union([Timestamp(), Type.Null()], { description });

export const ConversationSchema = Component(
  'Conversation',
  Type.Object({
    uuid: ReadOnly(Uuid()),
    agent_uuid: Uuid({ description: 'The agent of this tenant who talks' }),
    contact_uuid: NullableUuid('The contact talked to, when known'),
    channel: ChannelSchema,
    channel_label: Type.Union([Type.String(), Type.Null()], { description: 'How the channel is shown, e.g. `WhatsApp +34 600 000 000`' }),
    status: ReadOnly(StatusSchema),
    started_at: ReadOnly(Timestamp()),
    ended_at: ReadOnly(NullableTimestamp('When it was closed (a call: when it ended)')),
    created_at: ReadOnly(Timestamp()),
    updated_at: ReadOnly(Timestamp()),
  }),
);
export type ConversationJson = Static<typeof ConversationSchema>;

/** The members of a message every view has: the spec's export row. */
const messageRowProperties = {
  message_uuid: Uuid(),
  conversation_uuid: Uuid(),
  session_uuid: Uuid(),
  contact_uuid: NullableUuid('The conversation’s contact'),
  agent_uuid: Uuid(),
  channel: ChannelSchema,
  channel_label: Type.Union([Type.String(), Type.Null()]),
  sender: SenderSchema,
  message_type: MessageTypeSchema,
  content: Type.String({ description: '`***` in an export under the `masked` policy' }),
  created_at: Timestamp(),
};

/** One message as the message export writes it (export-page-json.ts writes exactly these members). */
export const ExportMessageSchema = Component('ConversationMessageExportRow', Type.Object(messageRowProperties));

/** One message, as the conversation routes, the sessions and the message events return it. */
export const MessageSchema = Component(
  'ConversationMessage',
  Type.Object({
    ...messageRowProperties,
    delivery_status: Type.Union([DeliveryStatusSchema, Type.Null()], {
      description:
        'For an agent message sent through a channel (SMS, chatapp, social): `pending` (queued), `sent` (the provider took it), `delivered`, `read`, or `failed`; ' +
        'it never moves backwards. Null for every other message',
    }),
    delivery_error: Type.Union([Type.String(), Type.Null()], { description: 'The provider’s reason, when `delivery_status` is `failed`' }),
  }),
);
export type MessageJson = Static<typeof MessageSchema>;

export const SessionSchema = Component(
  'ConversationSession',
  Type.Object({
    uuid: Uuid(),
    conversation_uuid: Uuid(),
    agent_uuid: Uuid(),
    contact_uuid: NullableUuid('The conversation’s contact'),
    channel: ChannelSchema,
    status: SessionStatusSchema,
    started_at: Timestamp(),
    ended_at: NullableTimestamp('When it closed'),
    close_reason: Type.Union([literals(SESSION_CLOSE_REASONS, ''), Type.Null()], {
      description: '`timeout`: the customer was idle for `sessionization.timeout_minutes`; `conversation_closed`: its conversation (a call) ended',
    }),
    message_count: Type.Integer(),
    last_customer_message_at: NullableTimestamp('The customer’s last message: the idleness clock'),
  }),
);
export type SessionJson = Static<typeof SessionSchema>;

export const SessionWithMessagesSchema = Component(
  'ConversationSessionWithMessages',
  Type.Object({ ...SessionSchema.properties, messages: Type.Array(MessageSchema, { description: 'Oldest first' }) }),
);
export type SessionWithMessagesJson = Static<typeof SessionWithMessagesSchema>;

const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

/** What the JSON and the events of a conversation are made of: its entity, or the plain row a lock read (row-locks.ts). */
export type ConversationFields = Pick<Conversation, 'uuid' | 'agentUuid' | 'contactUuid' | 'channel' | 'channelLabel' | 'status' | 'startedAt' | 'endedAt' | 'createdAt' | 'updatedAt'>;

export const conversationJson = (row: ConversationFields): ConversationJson => ({
  uuid: row.uuid,
  agent_uuid: row.agentUuid,
  contact_uuid: row.contactUuid,
  channel: row.channel,
  channel_label: row.channelLabel,
  status: row.status,
  started_at: iso(row.startedAt),
  ended_at: isoOrNull(row.endedAt),
  created_at: iso(row.createdAt),
  updated_at: iso(row.updatedAt),
});

export const messageJson = (row: ConversationMessage): MessageJson => ({
  message_uuid: row.uuid,
  conversation_uuid: row.conversationUuid,
  session_uuid: row.sessionUuid,
  contact_uuid: row.contactUuid,
  agent_uuid: row.agentUuid,
  channel: row.channel,
  channel_label: row.channelLabel,
  sender: row.sender,
  message_type: row.messageType,
  content: row.content,
  created_at: iso(row.createdAt),
  delivery_status: row.deliveryStatus,
  delivery_error: row.deliveryError,
});

export const sessionJson = (row: ConversationSession): SessionJson => ({
  uuid: row.uuid,
  conversation_uuid: row.conversationUuid,
  agent_uuid: row.agentUuid,
  contact_uuid: row.contactUuid,
  channel: row.channel,
  status: row.status,
  started_at: iso(row.startedAt),
  ended_at: isoOrNull(row.endedAt),
  close_reason: row.closeReason,
  message_count: row.messageCount,
  last_customer_message_at: isoOrNull(row.lastCustomerMessageAt),
});
