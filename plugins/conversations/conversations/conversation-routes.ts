import { DataEnvelope, NotFoundError, defineRoute, findByUuid, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import type { Channel } from '../channels';
import { Conversation } from '../entities';
import { ConversationSchema, conversationJson } from '../views';
import { CONVERSATION_NOT_FOUND, type ConversationWriter } from './conversation-writer';
import type { ConversationsRuntime } from './conversations-runtime';
import { ConversationCreate, ConversationListQuery, ConversationParams } from './schemas';
import { startedBetween } from './started-between';

const tags = ['conversations'];

/** Conversations: open, list, read and close. */
export const conversationRoutes = ({ writer }: ConversationsRuntime): AnyRoute[] => [openConversation(writer), listConversations, readConversation, closeConversation(writer)];

const openConversation = (writer: ConversationWriter) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/conversations',
    summary: 'Open a conversation',
    description:
      'Starts a conversation of an agent of this tenant (422 at `agent_uuid` otherwise) on a channel, `open` from now; ' +
      '`contact_uuid`, when given, must be a contact of this tenant (422 at `contact_uuid` otherwise; not checked when the contacts plugin is not installed). ' +
      'Channel adapters and API clients then record its turns with `POST /api/v1/conversations/{uuid}/messages`. ' +
      'Publishes `conversation.opened` (the `conversation_status` agent webhook event).',
    tags,
    body: ConversationCreate,
    status: 201,
    response: DataEnvelope(ConversationSchema),
    handler: async ({ body, em }) => ({
      data: await writer.open(em, {
        agentUuid: body.agent_uuid,
        contactUuid: body.contact_uuid ?? null,
        channel: body.channel as Channel,
        channelLabel: body.channel_label ?? null,
      }),
    }),
  });

const listConversations = listRoute({
  path: '/api/v1/conversations',
  summary: 'List conversations, newest first',
  description:
    'Filters combine: `agent_uuid`, `channel`, `status`, and `from <= started_at < to` (ISO 8601 date-times; `to` must be later than `from`). ' +
    'Ordered by `started_at`, newest first.',
  tags,
  query: ConversationListQuery,
  item: ConversationSchema,
  page: async ({ query, em }) => {
    const where = {
      ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
      ...(query.channel ? { channel: query.channel as Conversation['channel'] } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...startedBetween(query),
    };
    const [rows, total] = await em.findAndCount(Conversation, where, { orderBy: { startedAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [rows.map(conversationJson), total];
  },
});

const readConversation = readRoute({
  path: '/api/v1/conversations/:uuid',
  summary: 'Read a conversation',
  description: 'Its messages: `GET /api/v1/conversations/{uuid}/messages`; its sessions: `GET /api/v1/sessions?conversation_uuid=...`.',
  tags,
  params: ConversationParams,
  resource: ConversationSchema,
  read: async ({ params, em }) => {
    const conversation = await findByUuid(em, Conversation, params.uuid);
    if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
    return conversationJson(conversation);
  },
});

const closeConversation = (writer: ConversationWriter) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/conversations/:uuid/close',
    summary: 'Close a conversation (a call: it ended)',
    description:
      'The conversation (`open` or `transferred`) becomes `closed` with `ended_at` now, and its open session closes with `close_reason: conversation_closed` ' +
      '(publishing `session.closed`, which the evaluation plugin judges), then `conversation.closed` is published with `reason: "api"`. ' +
      'Closing a closed conversation answers it unchanged (200) and publishes nothing. A closed conversation takes no more messages.',
    tags,
    params: ConversationParams,
    errors: [404],
    response: DataEnvelope(ConversationSchema),
    handler: async ({ params, em }) => ({ data: await writer.setStatus(em, params.uuid, 'closed', 'api') }),
  });
