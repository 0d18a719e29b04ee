import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, type TenantRef } from '../../../core';
import type { ChatTurnJson } from '../../runtime';
import type { CallEvent, CallInstruction, ProviderCallStatus } from '../driver';
import { Call, type EndedReason } from '../entities';
import { CALL_TOPICS, type RecordingPayload } from '../topics';
import type { VoiceConfig } from './agent-line';
import { HANGUP, agentAndVoice, closing, endNow, listen, mustLock, overTime, recordAgentLines, say, voiceOf, withTransaction, type CallRef } from './call-steps';
import type { CallDeps } from './deps';
import { advance, endCall, markEnding } from './transitions';
import { planTransfer } from './transfer-target';
import { startTransfer, takeBack } from './transfers';

export type { CallRef } from './call-steps';

/**
 * What the call does after each callback of its provider, decided here for every driver:
 * the first lines on answer, one runtime turn per utterance, silence prompts, the
 * deadline, and the ends (voicemail, guard rules, transfers). Every change is one short
 * transaction under the call's lock; the model's turn runs with none open.
 */

/** The callee (or a machine) picked up; an incoming call is answered the same way once it exists. */
export async function answered(deps: CallDeps, ref: CallRef, answeredBy: 'human' | 'machine' | 'unknown'): Promise<CallInstruction[]> {
  const callUuid = ref.uuid;
  const voice = await voiceOf(deps, ref);
  return withTransaction(deps, async (em) => {
    const call = await mustLock(em, callUuid);
    if (call.status === 'ended') return [HANGUP];
    call.answeredBy = answeredBy;
    await advance(deps, call, 'in_progress');
    await deps.bus.publish(CALL_TOPICS.deadline, { call_uuid: call.uuid }, { delay: voice.maxCallDurationSeconds * 1000, key: call.uuid });
    if (answeredBy === 'machine') return endNow(deps, em, call, voice, 'voicemail', voice.voiceMailMessage ? [voice.voiceMailMessage] : []);
    const first = call.direction === 'outbound' ? voice.outboundFirstMessage : voice.inboundFirstMessage;
    if (voice.customerSpeakFirst || !first) return [listen(voice)];
    await recordAgentLines(deps, em, call, [first]);
    return [say(voice, first), listen(voice)];
  });
}

/** The caller said nothing for `silence_timeout_seconds`: a prompt, or the end after `max_silence_prompts` of them. */
export async function silence(deps: CallDeps, ref: CallRef): Promise<CallInstruction[]> {
  const callUuid = ref.uuid;
  const voice = await voiceOf(deps, ref);
  return withTransaction(deps, async (em) => {
    const call = await mustLock(em, callUuid);
    if (call.status === 'ended' || call.endingReason) return [HANGUP];
    if (overTime(call, voice)) return endNow(deps, em, call, voice, 'max_duration', [voice.maxCallDurationMessage]);
    if (call.muted) return [listen(voice)];
    call.silencePrompts += 1;
    if (call.silencePrompts > voice.maxSilencePrompts) return endNow(deps, em, call, voice, 'silence_timeout', closing(voice, [], true));
    if (!voice.silenceMessage) return [listen(voice)];
    await recordAgentLines(deps, em, call, [voice.silenceMessage]);
    return [say(voice, voice.silenceMessage), listen(voice)];
  });
}

/** One utterance of the caller: one runtime turn, its lines said, and what the turn decided (go on, transfer, end). */
export async function speech(deps: CallDeps, tenant: TenantRef, ref: CallRef, text: string): Promise<CallInstruction[]> {
  const callUuid = ref.uuid;
  const { agent, voice } = await agentAndVoice(deps, ref);
  const before = await withTransaction(deps, async (em) => {
    const call = await mustLock(em, callUuid);
    if (call.status === 'ended' || call.endingReason) return { instructions: [HANGUP] };
    if (overTime(call, voice)) return { instructions: await endNow(deps, em, call, voice, 'max_duration', [voice.maxCallDurationMessage]) };
    call.silencePrompts = 0;
    // Muted, the agent only listens: the caller's words are kept, and nobody answers them but a live `say`.
    if (call.muted) {
      await deps.conversations.record(em, call.conversationUuid, { sender: 'customer', content: text });
      return { instructions: [listen(voice)] };
    }
    return { call: { agentUuid: call.agentUuid, conversationUuid: call.conversationUuid } };
  });
  if (!before.call) return before.instructions;
  let turn: ChatTurnJson;
  try {
    turn = await deps.turns.take(tenant, before.call.agentUuid, { message: text.slice(0, 8000), conversation_uuid: before.call.conversationUuid, channel: 'voice' }, undefined, {
      agent: agent ?? undefined,
    });
  } catch (error) {
    // A closed conversation or an agent gone: nobody can answer any more.
    if (error instanceof ConflictError || error instanceof NotFoundError) return withTransaction(deps, async (em) => endNow(deps, em, await mustLock(em, callUuid), voice, 'hangup_by_agent', []));
    // The model failed this once: the caller is heard again rather than cut off.
    deps.logger.warn('a call turn failed; listening again', { call_uuid: callUuid, error: error instanceof Error ? error.message : String(error) });
    return [listen(voice)];
  }
  return afterTurn(deps, callUuid, voice, turn);
}

async function afterTurn(deps: CallDeps, callUuid: string, voice: VoiceConfig, turn: ChatTurnJson): Promise<CallInstruction[]> {
  const lines = turn.messages.map((message) => message.content);
  const said = lines.map((line) => say(voice, line));
  if (turn.transfer) {
    const row = await deps.orm.em.fork().findOne(Call, { uuid: callUuid });
    if (!row) throw new NotFoundError('Call not found');
    const plan = await planTransfer(deps, row, voice, turn.transfer);
    return withTransaction(deps, async (em) => {
      const call = await mustLock(em, callUuid);
      // The caller hung up (or an end was asked) while the model answered.
      if (call.status === 'ended' || call.endingReason) return [HANGUP];
      if (plan.ok) {
        await deps.conversations.record(em, call.conversationUuid, { sender: 'system', messageType: 'event', content: `call.transfer ${plan.description}` });
        // The call ends once the callee has answered; nobody answering brings it back (transfers.ts).
        startTransfer(call, plan.fallback);
        return [...said, plan.instruction];
      }
      // Nowhere to go (an unknown extension, an agent without a number): the call comes back to the agent at once.
      return [...said, ...(await takeBack(deps, em, call, voice, plan.reason, plan.fallback))];
    });
  }
  if (turn.status === 'closed') {
    // A guard rule ended the conversation (its line was the turn's).
    const end = closing(voice, lines, true).filter((line) => !lines.includes(line));
    return withTransaction(deps, async (em) => {
      const call = await mustLock(em, callUuid);
      markEnding(call, 'hangup_by_agent');
      await recordAgentLines(deps, em, call, end);
      return [...said, ...end.map((line) => say(voice, line)), HANGUP];
    });
  }
  return [...said, listen(voice)];
}

/** What a warm transfer's callee hears before being connected (the `announce` URL a driver gave the provider), in the agent's voice. */
export async function announcement(deps: CallDeps, ref: CallRef, text: string): Promise<CallInstruction[]> {
  const voice = await voiceOf(deps, ref);
  const line = text.trim().slice(0, 1000);
  return line ? [say(voice, line)] : [];
}

const ENDS: Partial<Record<ProviderCallStatus, EndedReason>> = { busy: 'busy', no_answer: 'no_answer', failed: 'failed' };

/** The provider's word on the call's state; its end ends the call with what the platform asked for, if it asked. */
export async function status(deps: CallDeps, call: Call, em: EntityManager, event: Extract<CallEvent, { kind: 'status' }>): Promise<void> {
  if (event.status === 'ringing' || event.status === 'in_progress' || event.status === 'queued') return advance(deps, call, event.status);
  const asked = call.endingReason;
  const reason: EndedReason = ENDS[event.status] ?? asked ?? (event.status === 'canceled' ? 'hangup_by_agent' : 'completed');
  await endCall(deps, em, call, reason, { durationSeconds: event.durationSeconds });
}

/** A recording is ready at the provider: fetched and stored on the bus (it may take a while). */
export async function recording(deps: CallDeps, callUuid: string, url: string): Promise<void> {
  const payload: RecordingPayload = { call_uuid: callUuid, url };
  await withTransaction(deps, () => deps.bus.publish(CALL_TOPICS.recording, payload));
}
