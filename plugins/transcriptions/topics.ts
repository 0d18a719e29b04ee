import type { AgentWebhookEvent } from '../agents';
import type { TranscriptionJson } from './view';

/** Bus topics of the transcriptions plugin. */
export const TRANSCRIPTION_TOPICS = {
  /** A transcription was taken: the job marks it processing and asks for the provider's work. */
  queued: 'transcriptions.queued',
  /** One run of the provider's work (`prepare`), then its outcome written. */
  transcribe: 'transcriptions.transcribe',
  /** One completion callback to deliver. */
  callback: 'transcriptions.callback',
  /** A transcription completed (agent webhooks `transcription_completed`). */
  completed: 'transcription.completed',
} as const;

export interface TranscribePayload {
  uuid: string;
  /** The run this message belongs to (`runs` of the row when it was published). */
  run: number;
}

export interface CallbackPayload {
  uuid: string;
  /** `webhook-id`: the same on every retry. */
  webhook_id: string;
  /** The exact JSON body sent, the same on every retry. */
  body: string;
}

export interface TranscriptionCompletedEvent {
  /** The agent the conversation belongs to (qa_agent_uuid, else agent_uuid); null: none, nothing is delivered. */
  agent_uuid: string | null;
  transcription: TranscriptionJson;
}

export const transcriptionCompletedEvent: AgentWebhookEvent = {
  name: 'transcription_completed',
  description:
    'A transcription of the agent completed (the agent is `qa_agent_uuid`, else `agent_uuid`): the transcription as `GET /api/v1/transcriptions/{uuid}` shows it, with `transcription_result` and `conversation_uuid`',
  source: {
    topics: [TRANSCRIPTION_TOPICS.completed],
    agentUuid: (payload: TranscriptionCompletedEvent) => payload.agent_uuid,
    data: (payload: TranscriptionCompletedEvent) => payload.transcription,
  },
};
