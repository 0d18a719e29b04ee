import { ConflictError, DataEnvelope, NotFoundError, defineRoute } from '../../../core';
import type { MessageType, Sender } from '../channels';
import { ConversationMessage } from '../entities';
import { MessageSchema, messageJson } from '../views';
import { CONVERSATION_NOT_FOUND } from './conversation-routes';
import type { ConversationsRuntime } from './index';
import { lockConversation, lockOpenSession } from './row-locks';
import { ConversationParams, MessageCreate } from './schemas';
import { armIdleTimer, openSession } from './session-lifecycle';

/** `POST /api/v1/conversations/{uuid}/messages`: a turn, recorded in the conversation's open session (opened if none is). */
export function registerMessageRoutes({ http, bus, sessionization }: ConversationsRuntime): void {
  http.route(
    defineRoute({
      method: 'POST',
      path: '/api/v1/conversations/:uuid/messages',
      summary: 'Record a message of a conversation',
      description:
        'Channel adapters and API clients record each turn here. The message goes into the conversation’s open session; when none is open ' +
        '(the first message, or the last session closed after customer idleness) a new session starts. The conversation’s agent, contact, ' +
        'channel and channel label are copied onto the message. Under the agent’s `sliding_timeout` sessionization each customer message ' +
        'restarts the idle clock: the session closes after `timeout_minutes` without one. A closed conversation answers 409.',
      tags: ['conversations'],
      params: ConversationParams,
      body: MessageCreate,
      status: 201,
      errors: [404, 409],
      response: DataEnvelope(MessageSchema),
      handler: async ({ params, body, em }) => {
        const conversation = await lockConversation(em, params.uuid);
        if (!conversation) throw new NotFoundError(CONVERSATION_NOT_FOUND);
        if (conversation.status === 'closed') throw new ConflictError('Conversation is closed');
        // Taken under the lock, so messages of one conversation are stamped in the order they are recorded.
        const now = new Date();
        const existing = await lockOpenSession(em, conversation.uuid);
        const session = existing ?? openSession(em, conversation, now);
        const sender = body.sender as Sender;
        const message = em.create(ConversationMessage, {
          conversationUuid: conversation.uuid,
          sessionUuid: session.uuid,
          agentUuid: conversation.agentUuid,
          contactUuid: conversation.contactUuid,
          channel: conversation.channel,
          channelLabel: conversation.channelLabel,
          sender,
          messageType: (body.message_type ?? 'text') as MessageType,
          content: body.content,
          createdAt: now,
          updatedAt: now,
        });
        session.messageCount += 1;
        if (sender === 'customer') session.lastCustomerMessageAt = now;
        await em.flush();
        if (!existing || sender === 'customer') await armIdleTimer(bus, session.uuid, await sessionization.forAgent(em, conversation.agentUuid));
        return { data: messageJson(message) };
      },
    }),
  );
}
