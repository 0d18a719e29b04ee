import type { AgentWebhookEvent } from '../agents';
import type { CallInstruction } from './driver';
import type { CallStatus, EndedReason } from './entities';

/** Bus topics of the calls plugin. */
export const CALL_TOPICS = {
  /** A call changed state (agent webhooks `call_status`). */
  status: 'call.status',
  /** Instructions for a live call, carried out through its driver outside any transaction. */
  perform: 'calls.perform',
  /** A call in progress reached its agent's `max_call_duration_seconds`. */
  deadline: 'calls.deadline',
  /** A call's recording is ready at the provider. */
  recording: 'calls.recording',
} as const;

export interface CallStatusEvent {
  agent_uuid: string;
  call_uuid: string;
  conversation_uuid: string;
  contact_uuid: string | null;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string;
  status: CallStatus;
  ended_reason: EndedReason | null;
  /** For outreach: the task a `make_call` placed the call for, when one did. */
  metadata: Record<string, unknown>;
}

export interface PerformPayload {
  call_uuid: string;
  /** `hangup` ends the call through the driver's own hangup; otherwise the instructions are played. */
  instructions: CallInstruction[];
}

export interface CallRefPayload {
  call_uuid: string;
}

export interface RecordingPayload {
  call_uuid: string;
  url: string;
}

export const callStatusEvent: AgentWebhookEvent = {
  name: 'call_status',
  description:
    'A call of the agent changed state (`queued`, `ringing`, `in_progress`, `ended` with its `ended_reason`): ' +
    '`{agent_uuid, call_uuid, conversation_uuid, contact_uuid, direction, from, to, status, ended_reason, metadata}`',
  source: { topics: [CALL_TOPICS.status], agentUuid: (payload: CallStatusEvent) => payload.agent_uuid },
};
