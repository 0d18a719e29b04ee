import { NotFoundError, findByUuid, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import { ConversationMessage, ConversationSession } from '../entities';
import { SessionSchema, SessionWithMessagesSchema, messageJson, sessionJson } from '../views';
import { SessionListQuery, SessionParams } from './schemas';
import { startedBetween } from './started-between';

const tags = ['conversations'];

const listSessions = listRoute({
  path: '/api/v1/sessions',
  summary: 'List sessions, newest first',
  description:
    'Filters combine: `conversation_uuid`, `agent_uuid`, `channel`, `status`, and `from <= started_at < to` (ISO 8601 date-times; ' +
    '`to` must be later than `from`). Ordered by `started_at`, newest first. Read one session for its messages.',
  tags,
  query: SessionListQuery,
  item: SessionSchema,
  page: async ({ query, em }) => {
    const where = {
      ...(query.conversation_uuid ? { conversationUuid: query.conversation_uuid } : {}),
      ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
      ...(query.channel ? { channel: query.channel as ConversationSession['channel'] } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...startedBetween(query),
    };
    const [rows, total] = await em.findAndCount(ConversationSession, where, { orderBy: { startedAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [rows.map(sessionJson), total];
  },
});

const readSession = readRoute({
  path: '/api/v1/sessions/:uuid',
  summary: 'Read a session with its messages',
  description: 'The session and every message recorded in it, oldest first.',
  tags,
  params: SessionParams,
  resource: SessionWithMessagesSchema,
  read: async ({ params, em }) => {
    const session = await findByUuid(em, ConversationSession, params.uuid);
    if (!session) throw new NotFoundError('Session not found');
    const messages = await em.find(ConversationMessage, { sessionUuid: session.uuid }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
    return { ...sessionJson(session), messages: messages.map(messageJson) };
  },
});

/** Sessions: the stretches of conversations that are judged as a whole. */
export const sessionRoutes: readonly AnyRoute[] = [listSessions, readSession];
