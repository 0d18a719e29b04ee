import type { BusService, HttpService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactCheck } from '../contact-check';
import type { SessionizationProvider } from '../sessionization-policy';
import { registerConversationRoutes } from './conversation-routes';
import { registerIdleSessionCloser } from './idle-session-closer';
import { registerMessageRoutes } from './message-routes';
import { registerSessionRoutes } from './session-routes';

export interface ConversationsRuntime {
  http: HttpService;
  bus: BusService;
  agents: AgentDirectory;
  /** The evaluation plugin's provider, else the configured default for every agent. */
  sessionization: SessionizationProvider;
  /** The contacts plugin's check of `contact_uuid`; none when it is not installed. */
  contacts?: ContactCheck;
}

/** Conversation, message, close and session routes, and the consumer that closes idle sessions. */
export function registerConversations(runtime: ConversationsRuntime): void {
  registerConversationRoutes(runtime);
  registerMessageRoutes(runtime);
  registerSessionRoutes(runtime);
  registerIdleSessionCloser(runtime);
}
