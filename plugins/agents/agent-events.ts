import type { AgentWebhookEvent } from './webhook-events';

/**
 * Bus topics the agents plugin publishes, in the writing transaction: nothing is
 * announced for a change that rolls back. Flows and webhook delivery consume them.
 */
export const AGENT_TOPICS = {
  created: 'agent.created',
  updated: 'agent.updated',
  deleted: 'agent.deleted',
} as const;

/** Payload of `agent.created` and `agent.updated`: the agent as the API returns it. */
export interface AgentChangedEvent {
  agent_uuid: string;
  /** Top-level members the write changed, e.g. `['guidelines']` (for created: every member). */
  changed: string[];
  agent: Record<string, unknown>;
}

export interface AgentDeletedEvent {
  agent_uuid: string;
  name: string;
}

/** Each event is announced by its own topic; `data` is the topic's payload. */
const ownSource = (topic: string): AgentWebhookEvent['source'] => ({ topics: [topic], agentUuid: (payload: { agent_uuid?: string }) => payload?.agent_uuid ?? null });

export const ownWebhookEvents: AgentWebhookEvent[] = [
  { name: AGENT_TOPICS.created, description: 'An agent was created', source: ownSource(AGENT_TOPICS.created) },
  { name: AGENT_TOPICS.updated, description: 'An agent or one of its lists or settings changed', source: ownSource(AGENT_TOPICS.updated) },
  { name: AGENT_TOPICS.deleted, description: 'An agent was deleted', source: ownSource(AGENT_TOPICS.deleted) },
];
