import { conversationRoutes } from './conversation-routes';
import type { ConversationsRuntime } from './conversations-runtime';
import { registerIdleSessionCloser } from './idle-session-closer';
import { messageRoutes } from './message-routes';
import { sessionRoutes } from './session-routes';

/** Conversation, message, close and session routes, and the consumer that closes idle sessions. */
export function registerConversations(runtime: ConversationsRuntime): void {
  for (const route of [...conversationRoutes(runtime), ...messageRoutes(runtime), ...sessionRoutes]) runtime.http.route(route);
  registerIdleSessionCloser(runtime);
}
