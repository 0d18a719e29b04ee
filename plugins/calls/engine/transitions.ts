import type { EntityManager } from '@mikro-orm/postgresql';
import type { Call, CallStatus, EndedReason } from '../entities';
import { CALL_TOPICS, type CallStatusEvent } from '../topics';
import type { CallDeps } from './deps';

const RANK = { queued: 0, ringing: 1, in_progress: 2, ended: 3 } as const;

/** `call.status` (agent webhooks `call_status`), published in the change's transaction. */
async function publishStatus(deps: CallDeps, call: Call): Promise<void> {
  const event: CallStatusEvent = {
    agent_uuid: call.agentUuid,
    call_uuid: call.uuid,
    conversation_uuid: call.conversationUuid,
    contact_uuid: call.contactUuid,
    direction: call.direction,
    from: call.from,
    to: call.to,
    status: call.status,
    ended_reason: call.endedReason,
    metadata: call.metadata,
  };
  await deps.bus.publish(CALL_TOPICS.status, event);
}

/** Moves a (locked) call forward to `ringing` or `in_progress`; a late or repeated callback moves nothing back. */
export async function advance(deps: CallDeps, call: Call, status: 'queued' | 'ringing' | 'in_progress'): Promise<void> {
  if (RANK[status] <= RANK[call.status as CallStatus]) return;
  call.status = status;
  if (status === 'in_progress') call.answeredAt ??= new Date();
  await publishStatus(deps, call);
}

/**
 * Ends a (locked) call once: its reason, its time, and its conversation closed, which
 * closes the session so the `voice` analyzers run. A provider's later word on a call
 * already ended only fills in the duration.
 */
export async function endCall(deps: CallDeps, em: EntityManager, call: Call, reason: EndedReason, details: { durationSeconds?: number | null; error?: string } = {}): Promise<void> {
  if (details.durationSeconds !== undefined && details.durationSeconds !== null) call.durationSeconds = details.durationSeconds;
  if (call.status === 'ended') return;
  call.status = 'ended';
  call.endedReason = reason;
  call.endingReason = null;
  call.endedAt = new Date();
  if (details.error) call.errorMessage = details.error;
  const conversation = await deps.conversations.lock(em, call.conversationUuid);
  if (conversation && conversation.status !== 'closed') await deps.conversations.setStatus(em, call.conversationUuid, 'closed', `call_${reason}`);
  await publishStatus(deps, call);
}

/** A call the platform is about to end or hand over: the provider's closing status then ends it with this reason. */
export function markEnding(call: Call, reason: EndedReason): void {
  call.endingReason ??= reason;
}

export { publishStatus };
