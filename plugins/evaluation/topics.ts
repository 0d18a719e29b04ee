import type { AgentWebhookEvent } from '../agents';
import type { Channel } from '../conversations';

export const EVALUATION_TOPICS = {
  /** A session's evaluation record was stored (first run or rerun). */
  evaluated: 'session.evaluated',
} as const;

/** Internal: `POST /sessions/{uuid}/evaluation/rerun` asks the evaluator to run again. */
export const RERUN_TOPIC = 'evaluation.rerun';

/** Payload of `session.evaluated`. */
export interface SessionEvaluatedEvent {
  evaluation_uuid: string;
  session_uuid: string;
  conversation_uuid: string;
  agent_uuid: string;
  channel: Channel;
  status: 'completed' | 'failed';
  success: boolean | null;
  summary: string | null;
  /** Each analyzer's label (null when it failed). */
  labels: Record<string, string | null>;
}

/** The agent webhook event (plugins/agent-webhooks delivers it): `data` is the `session.evaluated` payload. */
export const sessionEvaluatedWebhookEvent: AgentWebhookEvent = {
  name: 'session_evaluated',
  description: 'A session of the agent was evaluated (first run or rerun)',
  source: { topics: [EVALUATION_TOPICS.evaluated], agentUuid: (payload: SessionEvaluatedEvent) => payload?.agent_uuid ?? null },
};
