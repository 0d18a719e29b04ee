import {
  DataEnvelope,
  ListEnvelope,
  NotFoundError,
  ValidationError,
  defineRoute,
  type FieldErrors,
  findByUuid,
  pageOf,
  pageWindow,
} from '../../../core';
import { Conversation } from '../entities';
import { CONVERSATION_TOPICS } from '../topics';
import { ConversationSchema, conversationJson } from '../views';
import { conversationEvent } from './conversation-events';
import type { ConversationsRuntime } from './index';
import { lockConversation, lockOpenSession } from './row-locks';
import { ConversationCreate, ConversationListQuery, ConversationParams } from './schemas';
import { closeSession } from './session-lifecycle';
import { startedBetween } from './started-between';

const tags = ['conversations'];
export const CONVERSATION_NOT_FOUND = 'Conversation not found';

/** Conversations: open, list, read and close. */
export function registerConversationRoutes({ http, bus, agents, contacts }: ConversationsRuntime): void {
  http.route(
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
      handler: async ({ body, em }) => {
        const errors: FieldErrors = {};
        if (!(await agents.exists(body.agent_uuid))) errors.agent_uuid = ['is not an agent of this tenant'];
        if (body.contact_uuid && contacts && !(await contacts.exists(em, body.contact_uuid))) errors.contact_uuid = ['is not a contact of this tenant'];
        if (Object.keys(errors).length > 0) throw new ValidationError(errors);
        const now = new Date();
        const conversation = em.create(Conversation, {
          agentUuid: body.agent_uuid,
          contactUuid: body.contact_uuid ?? null,
          channel: body.channel as Conversation['channel'],
          channelLabel: body.channel_label ?? null,
          startedAt: now,
          createdAt: now,
          updatedAt: now,
        });
        await em.flush();
        await bus.publish(CONVERSATION_TOPICS.opened, conversationEvent(conversation));
        return { data: conversationJson(conversation) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/conversations',
      summary: 'List conversations, newest first',
      description:
        'Filters combine: `agent_uuid`, `channel`, `status`, and `from <= started_at < to` (ISO 8601 date-times; `to` must be later than `from`). ' +
        'Ordered by `started_at`, newest first.',
      tags,
      query: ConversationListQuery,
      response: ListEnvelope(ConversationSchema),
      handler: async ({ query, em }) => {
        const where = {
          ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
          ...(query.channel ? { channel: query.channel as Conversation['channel'] } : {}),
          ...(query.status ? { status: query.status } : {}),
          ...startedBetween(query),
        };
        const [rows, total] = await em.findAndCount(Conversation, where, { orderBy: { startedAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
        return pageOf(rows.map(conversationJson), total, query);
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/conversations/:uuid',
      summary: 'Read a conversation',
      description: 'Its messages are read per session: `GET /api/v1/sessions?conversation_uuid=...`, then `GET /api/v1/sessions/{uuid}`.',
      tags,
      params: ConversationParams,
      errors: [404],
      response: DataEnvelope(ConversationSchema),
      handler: async ({ params, em }) => {
        const conversation = await findByUuid(em, Conversation, params.uuid);
        if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
        return { data: conversationJson(conversation) };
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/conversations/:uuid/close',
      summary: 'Close a conversation (a call: it ended)',
      description:
        'The conversation becomes `closed` with `ended_at` now, and its open session closes with `close_reason: conversation_closed` ' +
        '(publishing `session.closed`, which the evaluation plugin judges), then `conversation.closed` is published. ' +
        'Closing a closed conversation answers it unchanged (200) and publishes nothing. A closed conversation takes no more messages.',
      tags,
      params: ConversationParams,
      errors: [404],
      response: DataEnvelope(ConversationSchema),
      handler: async ({ params, em }) => {
        const conversation = await lockConversation(em, params.uuid);
        if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
        if (conversation.status === 'closed') return { data: conversationJson(conversation) };
        const now = new Date();
        const session = await lockOpenSession(em, conversation.uuid);
        if (session) await closeSession(em, bus, session, 'conversation_closed', now);
        conversation.status = 'closed';
        conversation.endedAt = now;
        await em.flush();
        await bus.publish(CONVERSATION_TOPICS.closed, conversationEvent(conversation));
        return { data: conversationJson(conversation) };
      },
    }),
  );
}
