import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../../core';
import type { CallInstruction } from '../driver';
import type { Call, EndedReason } from '../entities';
import type { AgentJson } from '../../agents';
import { voiceConfig, type VoiceConfig } from './agent-line';
import { lockCall } from './call-rows';
import type { CallDeps } from './deps';
import { markEnding } from './transitions';

/** The pieces every callback's answer is made of (call-events.ts, transfers.ts): lines, listening, the end. */

export const say = (voice: VoiceConfig, text: string): CallInstruction => ({ type: 'say', text, language: voice.language, voice: voice.voice });
export const listen = (voice: VoiceConfig): CallInstruction => ({ type: 'listen', timeoutSeconds: voice.silenceTimeoutSeconds, language: voice.language });
export const HANGUP: CallInstruction = { type: 'hangup' };

/** A call as its callbacks name it: the agent's voice settings are read before its lock is taken. */
export interface CallRef {
  uuid: string;
  agentUuid: string;
}

/** The agent's lines, recorded on the conversation as it says them. */
export async function recordAgentLines(deps: CallDeps, em: EntityManager, call: Call, lines: string[]): Promise<void> {
  const said = lines.filter((line) => line.trim() !== '');
  if (said.length > 0) await deps.conversations.recordMany(em, call.conversationUuid, said.map((content) => ({ sender: 'agent' as const, content })));
}

export async function voiceOf(deps: CallDeps, call: Pick<Call, 'agentUuid'>): Promise<VoiceConfig> {
  return (await agentAndVoice(deps, call)).voice;
}

/** The agent as read (null when gone) and its voice settings; a turn is handed the agent so that it does not read it again. */
export async function agentAndVoice(deps: CallDeps, call: Pick<Call, 'agentUuid'>): Promise<{ agent: AgentJson | null; voice: VoiceConfig }> {
  const agent = await deps.agents.getWithoutSlots(call.agentUuid);
  return { agent, voice: voiceConfig(agent ?? { agent_uuid: call.agentUuid, name: '' }) };
}

export function withTransaction<T>(deps: CallDeps, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return deps.orm.em.fork().transactional(work);
}

/** Lines said, then the end: a platform hangup says `end_call_message` unless its own lines said something. */
export const closing = (voice: VoiceConfig, lines: string[], withEndMessage: boolean): string[] =>
  withEndMessage && lines.every((line) => line.trim() === '') && voice.endCallMessage ? [voice.endCallMessage] : lines.filter((line) => line.trim() !== '');

/** Past its agent's maximum duration: the call ends with `max_call_duration_message`. */
export const overTime = (call: Call, voice: VoiceConfig, now = Date.now()) => call.answeredAt !== null && now - call.answeredAt.getTime() >= voice.maxCallDurationSeconds * 1000;

export async function endNow(deps: CallDeps, em: EntityManager, call: Call, voice: VoiceConfig, reason: EndedReason, lines: string[]): Promise<CallInstruction[]> {
  markEnding(call, reason);
  await recordAgentLines(deps, em, call, lines);
  return [...lines.map((line) => say(voice, line)), HANGUP];
}

export async function mustLock(em: EntityManager, callUuid: string): Promise<Call> {
  const call = await lockCall(em, callUuid);
  if (!call) throw new NotFoundError('Call not found');
  return call;
}
