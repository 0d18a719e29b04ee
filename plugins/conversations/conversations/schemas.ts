import { PageQuery, ReadOnly, ResourceId, Timestamp, Type, Uuid } from '../../../core';
import { CONVERSATION_STATUSES, SESSION_STATUSES } from '../channels';
import { ChannelSchema, ConversationSchema, MessageTypeSchema, SenderSchema } from '../views';

/** The request schemas of the conversation and session routes (responses are in ../views.ts). */

export const ConversationParams = Type.Object({ uuid: ResourceId('conversations.conversation', 'The conversation') });
export const SessionParams = Type.Object({ uuid: ResourceId('conversations.session', 'The session') });

export const ConversationCreate = Type.Object(
  {
    // Read-only members of the resource, so a client can send back what it read.
    uuid: ConversationSchema.properties.uuid,
    status: ConversationSchema.properties.status,
    started_at: ConversationSchema.properties.started_at,
    ended_at: ConversationSchema.properties.ended_at,
    created_at: ConversationSchema.properties.created_at,
    updated_at: ConversationSchema.properties.updated_at,
    agent_uuid: ResourceId('agents.agent', 'The agent of this tenant who talks (422 when it is not one)'),
    contact_uuid: Type.Optional(Type.Union([ResourceId('contacts.contact'), Type.Null()], { description: 'The contact talked to, when known: a contact of this tenant (422 when it is not one)' })),
    channel: ChannelSchema,
    channel_label: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'How the channel is shown, e.g. `WhatsApp +34 600 000 000`; copied onto each message' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ agent_uuid: '0190d5c2-0000-7000-8000-0000000000aa', channel: 'chat', channel_label: 'Website chat' }],
  },
);

export const MessageCreate = Type.Object(
  {
    message_uuid: ReadOnly(Uuid()),
    created_at: ReadOnly(Timestamp()),
    sender: SenderSchema,
    message_type: Type.Optional({ ...MessageTypeSchema, default: 'text' }),
    content: Type.String({ minLength: 1, maxLength: 100_000, description: 'The text said or written (for `audio`, a transcript or a URL)' }),
  },
  { additionalProperties: false, examples: [{ sender: 'customer', message_type: 'text', content: 'Hello, is the shop open on Sunday?' }] },
);

const statusFilter = <S extends string>(statuses: readonly S[]) =>
  Type.Optional(Type.Union(statuses.map((status) => Type.Literal(status)), { description: 'Only those in this status' }));

/** `from <= started_at < to`, both optional. */
const startedBetween = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only those started at or after this ISO 8601 date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only those started before this ISO 8601 date-time (exclusive); must be later than `from`' })),
};

export const ConversationListQuery = PageQuery({
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s conversations' })),
  channel: Type.Optional(ChannelSchema),
  status: statusFilter(CONVERSATION_STATUSES),
  ...startedBetween,
});

/** The messages of one conversation: pages only. */
export const MessageListQuery = PageQuery();

export const SessionListQuery = PageQuery({
  conversation_uuid: Type.Optional(Uuid({ description: 'Only this conversation’s sessions' })),
  agent_uuid: Type.Optional(Uuid({ description: 'Only this agent’s sessions' })),
  channel: Type.Optional(ChannelSchema),
  status: statusFilter(SESSION_STATUSES),
  ...startedBetween,
});
