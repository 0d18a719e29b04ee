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
  /**
   * Where the event comes from, for the delivery (plugins/agent-webhooks): the bus topics
   * that announce it, the agent a payload belongs to (null: none, nothing is delivered),
   * and the `data` sent (default: the payload). The plugin that owns an event declares
   * this; no plugin writes a consumer for another's events.
   */
  source?: {
    topics: string[];
    agentUuid: (payload: any, topic: string) => string | null;
    data?: (payload: any, topic: string) => unknown;
  };
}

export const agentWebhookEvents = createExtensionPoint<AgentWebhookEvent>({ id: 'agents.webhookEvents', keyOf: (event) => event.name });
