import { DataEnvelope, NotFoundError, defineRoute, findByUuid, listRoute, pageWindow, type AnyRoute } from '../../../core';
import type { MessageType, Sender } from '../channels';
import { Conversation, ConversationMessage } from '../entities';
import { MessageSchema, messageJson } from '../views';
import { CONVERSATION_NOT_FOUND, OLDEST_FIRST, type ConversationWriter } from './conversation-writer';
import type { ConversationsRuntime } from './conversations-runtime';
import { ConversationParams, MessageCreate, MessageListQuery } from './schemas';

const tags = ['conversations'];

/** A conversation's messages: recorded one at a time (a turn), read in pages, oldest first. */
export const messageRoutes = ({ writer }: ConversationsRuntime): AnyRoute[] => [recordMessage(writer), listMessages];

const recordMessage = (writer: ConversationWriter) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/conversations/:uuid/messages',
    summary: 'Record a message of a conversation',
    description:
      'Channel adapters and API clients record each turn here. The message goes into the conversation’s open session; when none is open ' +
      '(the first message, or the last session closed after customer idleness) a new session starts. The conversation’s agent, contact, ' +
      'channel and channel label are copied onto the message. Under the agent’s `sliding_timeout` sessionization each customer message ' +
      'restarts the idle clock: the session closes after `timeout_minutes` without one. A `transferred` conversation still takes messages ' +
      '(a person may continue it); a closed one answers 409. Publishes `conversation.message_created` (the `message_created` agent webhook event).',
    tags,
    params: ConversationParams,
    body: MessageCreate,
    status: 201,
    errors: [404, 409],
    response: DataEnvelope(MessageSchema),
    handler: async ({ params, body, em }) => ({
      data: await writer.record(em, params.uuid, {
        sender: body.sender as Sender,
        messageType: (body.message_type ?? 'text') as MessageType,
        content: body.content,
      }),
    }),
  });

const listMessages = listRoute({
  path: '/api/v1/conversations/:uuid/messages',
  summary: 'List a conversation’s messages, oldest first',
  description:
    'Every message of the conversation across its sessions, of every `message_type` (tool calls included), in the order they were recorded ' +
    '(`created_at`, then `message_uuid`). 404 for a conversation this tenant does not have.',
  tags,
  params: ConversationParams,
  query: MessageListQuery,
  errors: [404],
  item: MessageSchema,
  page: async ({ params, query, em }) => {
    const conversation = await findByUuid(em, Conversation, params.uuid);
    if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    const [rows, total] = await em.findAndCount(ConversationMessage, { conversationUuid: conversation.uuid }, { orderBy: OLDEST_FIRST, ...pageWindow(query) });
    return [rows.map(messageJson), total];
  },
});
