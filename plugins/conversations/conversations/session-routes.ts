import { DataEnvelope, ListEnvelope, NotFoundError, defineRoute, findByUuid, pageOf, pageWindow } from '../../../core';
import { ConversationMessage, ConversationSession } from '../entities';
import { SessionSchema, SessionWithMessagesSchema, messageJson, sessionJson } from '../views';
import type { ConversationsRuntime } from './index';
import { SessionListQuery, SessionParams } from './schemas';
import { startedBetween } from './started-between';

const tags = ['conversations'];

/** Sessions: the stretches of conversations that are judged as a whole. */
export function registerSessionRoutes({ http }: ConversationsRuntime): void {
  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/sessions',
      summary: 'List sessions, newest first',
      description:
        'Filters combine: `conversation_uuid`, `agent_uuid`, `channel`, `status`, and `from <= started_at < to` (ISO 8601 date-times; ' +
        '`to` must be later than `from`). Ordered by `started_at`, newest first. Read one session for its messages.',
      tags,
      query: SessionListQuery,
      response: ListEnvelope(SessionSchema),
      handler: async ({ query, em }) => {
        const where = {
          ...(query.conversation_uuid ? { conversationUuid: query.conversation_uuid } : {}),
          ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
          ...(query.channel ? { channel: query.channel as ConversationSession['channel'] } : {}),
          ...(query.status ? { status: query.status } : {}),
          ...startedBetween(query),
        };
        const [rows, total] = await em.findAndCount(ConversationSession, where, { orderBy: { startedAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
        return pageOf(rows.map(sessionJson), total, query);
      },
    }),
  );

  http.route(
    defineRoute({
      method: 'GET',
      path: '/api/v1/sessions/:uuid',
      summary: 'Read a session with its messages',
      description: 'The session and every message recorded in it, oldest first.',
      tags,
      params: SessionParams,
      errors: [404],
      response: DataEnvelope(SessionWithMessagesSchema),
      handler: async ({ params, em }) => {
        const session = await findByUuid(em, ConversationSession, params.uuid);
        if (!session) throw new NotFoundError('Session not found');
        const messages = await em.find(ConversationMessage, { sessionUuid: session.uuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
        return { data: { ...sessionJson(session), messages: messages.map(messageJson) } };
      },
    }),
  );
}
