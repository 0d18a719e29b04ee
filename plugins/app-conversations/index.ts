import { definePlugin } from '../../core';
import { flowAppExtensions } from '../flows';
import { conversationClosed, sessionEvaluated } from './conversation-triggers';

/**
 * Conversations in the flow studio: the `agents` app (plugin app-agents) gains the
 * triggers `conversation_closed` and `session_evaluated`. They join that app through
 * the flows plugin's `flowAppExtensions` point, so neither the flows plugin nor
 * app-agents knows about conversations; the flows plugin consumes their events.
 */
export default definePlugin({
  contributes: [flowAppExtensions.add({ app: 'agents', by: 'app-conversations', triggers: [conversationClosed, sessionEvaluated] })],
});
