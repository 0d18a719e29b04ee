import { createExtensionPoint } from '../../core';

/**
 * An event an agent webhook can subscribe to. The agents plugin adds its own
 * (`agent.created`, ...); conversation, evaluation and other plugins add theirs, and
 * `events` of a webhook must name only what is in this catalog.
 */
export interface AgentWebhookEvent {
  /** The name a webhook lists in `events`, e.g. `conversation_status`. */
  name: string;
  description: string;
}

export const agentWebhookEvents = createExtensionPoint<AgentWebhookEvent>({ id: 'agents.webhookEvents', keyOf: (event) => event.name });
