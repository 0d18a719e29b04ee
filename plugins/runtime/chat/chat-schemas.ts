import { Component, ResourceId, Timestamp, Type, Uuid, type Static } from '../../../core';
import { ChannelSchema } from '../../conversations';

export const ChatParams = Type.Object({ uuid: ResourceId('agents.agent', 'The agent who answers') });

export const ChatRequest = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 8000, description: 'What the customer says' }),
    conversation_uuid: Type.Optional(
      ResourceId('conversations.conversation', 'Continue this conversation (an open one of this agent); without it a conversation is opened'),
    ),
    contact: Type.Optional(
      Type.Object(
        {
          phone_number: Type.Optional(Type.String({ maxLength: 32 })),
          email: Type.Optional(Type.String({ maxLength: 320 })),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false, description: 'Who talks, for a new conversation: the contact with this phone number or email, else a new one; with neither, the conversation has no contact (and no memory)' },
      ),
    ),
    channel: Type.Optional({ ...ChannelSchema, description: 'The channel of a new conversation (default `chat`)' }),
  },
  { additionalProperties: false, examples: [{ message: 'Hi, do you open on Saturdays?', contact: { name: 'Ana', email: 'ana@example.com' } }] },
);

const AgentMessage = Type.Object(
  { uuid: Uuid(), content: Type.String(), created_at: Timestamp() },
  { additionalProperties: false },
);

export const ToolCallSchema = Component(
  'ChatToolCall',
  Type.Object(
    {
      name: Type.String({ description: 'The tool: an intent’s key, `search_knowledge`, `lookup_records`, `transfer` or `end_conversation`' }),
      arguments: Type.Record(Type.String(), Type.Unknown(), { description: 'As the model gave them' }),
      status: Type.Union([Type.Literal('ok'), Type.Literal('error')], { description: '`error`: the tool failed; the model got the error as the result' }),
      duration_ms: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

export const TransferSchema = Type.Object(
  {
    rule_uuid: Uuid(),
    kind: Type.Union([Type.Literal('routing'), Type.Literal('guard')], { description: 'A routing rule the model chose (`transfer`), or a guard rule that fired' }),
    destination_type: Type.String(),
    destination: Type.String(),
    destination_agent_uuid: Type.Union([Uuid(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const ChatTurn = Component(
  'ChatTurn',
  Type.Object(
    {
      conversation_uuid: Uuid(),
      session_uuid: Uuid(),
      status: Type.Union([Type.Literal('open'), Type.Literal('transferred'), Type.Literal('closed')], { description: 'The conversation’s status after the turn' }),
      reply: Type.Union([AgentMessage, Type.Null()], { description: 'The agent’s last message of the turn' }),
      messages: Type.Array(AgentMessage, { description: 'Every agent message of the turn, in order (split messages, closing lines)' }),
      tool_calls: Type.Array(ToolCallSchema),
      transfer: Type.Union([TransferSchema, Type.Null()]),
    },
    { additionalProperties: false },
  ),
);

export type ChatTurnJson = Static<typeof ChatTurn>;
export type ChatRequestJson = Static<typeof ChatRequest>;
