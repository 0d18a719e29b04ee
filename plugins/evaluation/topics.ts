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
