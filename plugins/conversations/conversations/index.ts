import type { HttpService } from '../../../core';
import type { ConversationWriter } from './conversation-writer';
import type { ConversationWriterDeps } from './conversation-writer';
import { registerConversationRoutes } from './conversation-routes';
import { registerIdleSessionCloser } from './idle-session-closer';
import { registerMessageRoutes } from './message-routes';
import { registerSessionRoutes } from './session-routes';

export interface ConversationsRuntime extends ConversationWriterDeps {
  http: HttpService;
  /** The one code path that writes conversations (the routes' and other plugins'). */
  writer: ConversationWriter;
}

/** Conversation, message, close and session routes, and the consumer that closes idle sessions. */
export function registerConversations(runtime: ConversationsRuntime): void {
  registerConversationRoutes(runtime);
  registerMessageRoutes(runtime);
  registerSessionRoutes(runtime);
  registerIdleSessionCloser(runtime);
}
