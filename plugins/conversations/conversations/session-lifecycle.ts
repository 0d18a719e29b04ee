import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import type { SessionCloseReason } from '../channels';
import type { ConversationSession } from '../entities';
import type { Sessionization } from '../sessionization-policy';
import { CONVERSATION_TOPICS, SESSION_TIMEOUT_TOPIC } from '../topics';
import { sessionClosedEvent } from './conversation-events';

/** Milliseconds of customer idleness after which a `sliding_timeout` session closes (minutes may be fractional). */
export const idleTimeoutMs = (sessionization: Sessionization) => Math.max(0, Math.round(sessionization.timeoutMinutes * 60_000));

/** When a session's customer has been idle long enough: the clock starts at the last customer message, else at the session's start. */
export const idleDeadline = (session: ConversationSession, sessionization: Sessionization) =>
  (session.lastCustomerMessageAt ?? session.startedAt).getTime() + idleTimeoutMs(sessionization);

/**
 * (Re)arms the session's idle timer: one delayed message per session, keyed by it,
 * so each new one replaces the pending one (the newest deadline wins). Under
 * `per_conversation` there is no timer: the session lasts as long as its conversation.
 */
export async function armIdleTimer(bus: BusService, sessionUuid: string, sessionization: Sessionization, delayMs = idleTimeoutMs(sessionization)): Promise<void> {
  if (sessionization.mode !== 'sliding_timeout') return;
  await bus.publish(SESSION_TIMEOUT_TOPIC, { session_uuid: sessionUuid }, { key: `session:${sessionUuid}`, delay: Math.max(0, Math.round(delayMs)) });
}

/** Closes an open session (the caller holds its lock) and announces it to the evaluation plugin and others. */
export async function closeSession(em: EntityManager, bus: BusService, session: ConversationSession, reason: SessionCloseReason, now: Date): Promise<void> {
  session.status = 'closed';
  session.endedAt = now;
  session.closeReason = reason;
  await em.flush();
  await bus.publish(CONVERSATION_TOPICS.sessionClosed, sessionClosedEvent(session, reason));
}
