import type { EntityManager } from '@mikro-orm/postgresql';
import type { CallEvent, CallInstruction } from '../driver';
import type { Call } from '../entities';
import type { VoiceConfig } from './agent-line';
import { HANGUP, endNow, listen, mustLock, overTime, recordAgentLines, say, voiceOf, withTransaction, type CallRef } from './call-steps';
import type { CallDeps } from './deps';
import { endCall, markEnding } from './transitions';

/**
 * A transfer's life on the call: handed to the provider (`startTransfer`), then its dial's
 * outcome (`transferEnded`): answered, the call ends `transferred`; nobody took it, the agent
 * takes the call back (`takeBack`), which is also what a transfer with nowhere to go does.
 */

/** What the agent says when the call comes back and its rule has no line of its own. */
export const DEFAULT_FALLBACK_LINE = 'I’m sorry, I could not put you through right now. Is there anything else I can help you with?';

/**
 * A (locked) call handed to the provider for a transfer: it is ending `transferred` (live
 * actions answer 409, the deadline leaves it alone) but stays in progress until the dial's
 * outcome is known, so that a callee who does not answer hands the call back rather than
 * ending it. `fallback` is kept for that moment.
 */
export function startTransfer(call: Call, fallback: string | null): void {
  markEnding(call, 'transferred');
  call.transferFallback = fallback;
}

/**
 * The call comes back to the agent, in the caller's transaction under the call's lock: why,
 * on the conversation (`call.transfer_failed: {reason}`); the conversation back from
 * `transferred` (the runtime's mark when its turn chose the transfer) to `open`, so the next
 * utterance is a turn again; a muted call unmuted; the fallback line said and recorded; then listening. All of it
 * commits together or not at all. A conversation closed meanwhile has nobody to answer: the call ends.
 */
export async function takeBack(deps: CallDeps, em: EntityManager, call: Call, voice: VoiceConfig, reason: string, fallback: string | null): Promise<CallInstruction[]> {
  if (call.endingReason === 'transferred') call.endingReason = null;
  call.transferFallback = null;
  // The dial took the line out of the conference a mute keeps it in: nothing is muted any more, and the agent is back to speak.
  call.muted = false;
  call.silencePrompts = 0;
  const conversation = await deps.conversations.lock(em, call.conversationUuid);
  if (!conversation || conversation.status === 'closed') return endNow(deps, em, call, voice, 'hangup_by_agent', []);
  await deps.conversations.record(em, call.conversationUuid, { sender: 'system', messageType: 'event', content: `call.transfer_failed: ${reason}` });
  if (conversation.status === 'transferred') await deps.conversations.setStatus(em, call.conversationUuid, 'open', 'call_transfer_failed');
  if (overTime(call, voice)) return endNow(deps, em, call, voice, 'max_duration', [voice.maxCallDurationMessage].filter((line) => line.trim() !== ''));
  const line = fallback?.trim() || DEFAULT_FALLBACK_LINE;
  await recordAgentLines(deps, em, call, [line]);
  return [say(voice, line), listen(voice)];
}

/** The `dial` callback: how a transfer's dial ended, and what the caller hears next. */
export async function transferEnded(deps: CallDeps, ref: CallRef, event: Extract<CallEvent, { kind: 'transfer_ended' }>): Promise<CallInstruction[]> {
  const voice = await voiceOf(deps, ref);
  return withTransaction(deps, async (em) => {
    const call = await mustLock(em, ref.uuid);
    if (call.status === 'ended') return [HANGUP];
    // No transfer waits for this outcome: one already taken back goes on listening; any other end asked for stands.
    if (call.endingReason !== 'transferred') return call.endingReason ? [HANGUP] : [listen(voice)];
    if (event.outcome === 'completed') {
      // The callee answered and the two have talked: the agent's part was over at the bridge; the provider's last status adds the duration.
      call.transferFallback = null;
      await endCall(deps, em, call, 'transferred');
      return [HANGUP];
    }
    return takeBack(deps, em, call, voice, event.outcome, call.transferFallback);
  });
}
