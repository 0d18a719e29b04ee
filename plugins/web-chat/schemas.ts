import { Timestamp, Type, Uuid } from '../../core';

/** Any text: a key that is not one is simply not found (404), like one that was deleted. */
const PublicKey = Type.String({ minLength: 1, maxLength: 100, description: 'The `public_key` of an agent’s `web_chat` channel (`pk_...`)' });

export const KeyParams = Type.Object({ public_key: PublicKey });
export const ConversationParams = Type.Object({ public_key: PublicKey, uuid: Uuid({ description: 'The conversation the visitor token was given for' }) });

export const OpenedConversation = Type.Object(
  {
    conversation_uuid: Uuid(),
    visitor_token: Type.String({
      description: 'The secret that continues and reads this conversation (`Authorization: Bearer <visitor_token>`); shown once, only its hash is kept',
    }),
  },
  { additionalProperties: false },
);

export const VisitorMessage = Type.Object(
  { message: Type.String({ minLength: 1, maxLength: 8000, description: 'What the visitor says' }) },
  { additionalProperties: false, examples: [{ message: 'Hi, do you ship to Portugal?' }] },
);

/**
 * The turn exactly as `POST /api/v1/agents/{uuid}/chat` answers it (the `ChatTurn`
 * schema, which the runtime plugin does not export: described here by reference in words).
 */
export const VisitorTurn = Type.Object(
  {},
  {
    additionalProperties: true,
    description: 'The turn as `POST /api/v1/agents/{uuid}/chat` answers it: `conversation_uuid`, `session_uuid`, `status`, `reply`, `messages`, `tool_calls`, `transfer`',
  },
);

export const VisitorHistory = Type.Object(
  {
    conversation_uuid: Uuid(),
    status: Type.Union([Type.Literal('open'), Type.Literal('transferred'), Type.Literal('closed')]),
    messages: Type.Array(
      Type.Object(
        {
          message_uuid: Uuid(),
          sender: Type.Union([Type.Literal('customer'), Type.Literal('agent')], { description: '`customer`: the visitor' }),
          content: Type.String(),
          created_at: Timestamp(),
        },
        { additionalProperties: false },
      ),
      { description: 'The last 200 text messages of the visitor and the agent, oldest first (no tool calls or events)' },
    ),
  },
  { additionalProperties: false },
);
