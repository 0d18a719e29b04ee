import type { AgentWebhookEvent } from '../agents';

/** Bus topics the runtime publishes, in the turn's closing transaction. */
export const RUNTIME_TOPICS = {
  intentCalled: 'agent.intent_called',
} as const;

/** Payload of `agent.intent_called`: one intent tool the model called in a turn. */
export interface IntentCalledEvent {
  agent_uuid: string;
  conversation_uuid: string;
  contact_uuid: string | null;
  intent_uuid: string;
  intent: string;
  parameters: Record<string, unknown>;
  status: 'ok' | 'error';
  duration_ms: number;
  /** What went back to the model: the webhook's answer (JSON, or its text), or the error. */
  result: unknown;
}

export const intentCalledEvent: AgentWebhookEvent = {
  name: 'intent_called',
  description:
    'The agent called one of its intents in a conversation: `{agent_uuid, conversation_uuid, contact_uuid, intent_uuid, intent, parameters, status, duration_ms, result}`',
  source: { topics: [RUNTIME_TOPICS.intentCalled], agentUuid: (payload: IntentCalledEvent) => payload.agent_uuid },
};
