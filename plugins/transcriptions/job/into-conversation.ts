import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentDirectory } from '../../agents';
import type { ConversationWriter } from '../../conversations';
import type { Transcription } from '../entities';

/**
 * The agent whose conversation a transcription becomes: `qa_agent_uuid` when given (the
 * evaluation plugin applies the settings of a session's agent, so this is how a request
 * picks whose evaluation settings judge the call), else `agent_uuid`; null with neither.
 */
export const conversationAgentOf = (row: Pick<Transcription, 'qaAgentUuid' | 'agentUuid'>) => row.qaAgentUuid ?? row.agentUuid ?? null;

/**
 * Turns a completed transcription into a closed conversation on channel `voice`: one
 * message per segment with words, in order, as the segment's speaker; closing it closes
 * its session, which the evaluation plugin then evaluates like a call's. The recording
 * is taken to end when the conversation is opened: a message is stamped at
 * `started_at - duration + segment start`, so the session spans the recording and ends
 * after its last message. Nothing is made without an agent (or when it was deleted
 * meanwhile) or without a word said. Runs in the job's transaction.
 */
export async function intoConversation(
  em: EntityManager,
  deps: { conversations: ConversationWriter; agents: AgentDirectory },
  row: Transcription,
): Promise<string | null> {
  const agentUuid = conversationAgentOf(row);
  const segments = (row.result?.segments ?? []).filter((segment) => segment.text.trim() !== '');
  if (!agentUuid || segments.length === 0 || !(await deps.agents.exists(agentUuid))) return null;
  const conversation = await deps.conversations.open(em, { agentUuid, contactUuid: null, channel: 'voice', channelLabel: 'transcription' });
  const duration = Math.max(row.result?.duration ?? 0, ...segments.map((segment) => segment.end));
  const base = new Date(conversation.started_at).getTime() - Math.round(duration * 1000);
  await deps.conversations.recordMany(
    em,
    conversation.uuid,
    segments.map((segment) => ({ sender: segment.speaker, content: segment.text, createdAt: new Date(base + Math.round(segment.start * 1000)) })),
  );
  await deps.conversations.setStatus(em, conversation.uuid, 'closed', 'transcription_completed');
  return conversation.uuid;
}
