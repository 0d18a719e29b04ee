import { SESSION_TIMEOUT_TOPIC } from '../topics';
import type { ConversationsRuntime } from './conversations-runtime';
import { lockSession } from './row-locks';
import { armIdleTimer, closeSession, idleDeadline } from './session-lifecycle';

/**
 * Timers fire on the relay's clock, a little before or after the deadline the
 * session's own timestamps give; this much early still counts as due, so a timer
 * is not re-armed for a few milliseconds.
 */
const TIMER_SLACK_MS = 250;

/**
 * Closes a session whose customer has been idle for the agent's timeout, when its
 * delayed timer message arrives. Each customer message re-arms the timer (replacing
 * the pending one), and the deadline is re-computed here from the session itself, so
 * a timer that arrives although a later message came (it was already on its way) or
 * after the timeout was raised does nothing but re-arm for the real deadline. The
 * conversation stays open: its next message starts a new session.
 */
export function registerIdleSessionCloser({ bus, sessionization }: ConversationsRuntime): void {
  bus.consume<{ session_uuid: string }>({ name: 'close-idle-sessions', topics: [SESSION_TIMEOUT_TOPIC], concurrency: 4 }, async (message, { em }) => {
    const sessionUuid = message.payload?.session_uuid;
    // Guarded because a filter on an undefined id would match any session.
    if (typeof sessionUuid !== 'string') return;
    const session = await lockSession(em, sessionUuid);
    if (!session || session.status !== 'open') return;
    const policy = await sessionization.forAgent(em, session.agentUuid);
    // Switched to per_conversation meanwhile: only closing the conversation ends it now.
    if (policy.mode !== 'sliding_timeout') return;
    const now = new Date();
    const remaining = idleDeadline(session, policy) - now.getTime();
    if (remaining > TIMER_SLACK_MS) {
      await armIdleTimer(bus, session.uuid, policy, remaining);
      return;
    }
    await closeSession(em, bus, session, 'timeout', now);
  });
}
