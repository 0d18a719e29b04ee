import { newUuid } from '../../../core';
import type { Transcription } from '../entities';
import { TRANSCRIPTION_TOPICS, type CallbackPayload, type TranscriptionCompletedEvent } from '../topics';
import { transcriptionViews } from '../view';
import type { TranscriptionDeps } from './deps';
import { conversationAgentOf } from './into-conversation';

/**
 * Tells who asked how a transcription ended, in the transaction that records it: its
 * `callback_url` (`transcription_completed` or `transcription_failed`, the body fixed
 * now so every retry sends the same bytes under the same `webhook-id`), and, once
 * completed, the agent webhooks subscribed to `transcription_completed`.
 */
export async function announceOutcome(deps: TranscriptionDeps, row: Transcription): Promise<void> {
  const data = await transcriptionViews(deps.storage, deps.settings.urlTtlSeconds).one(row);
  if (row.callbackUrl) {
    const type = row.status === 'completed' ? 'transcription_completed' : 'transcription_failed';
    const body = JSON.stringify({ type, timestamp: new Date().toISOString(), data });
    await deps.bus.publish(TRANSCRIPTION_TOPICS.callback, { uuid: row.uuid, webhook_id: `msg_${newUuid()}`, body } satisfies CallbackPayload);
  }
  if (row.status === 'completed') {
    await deps.bus.publish(TRANSCRIPTION_TOPICS.completed, { agent_uuid: conversationAgentOf(row), transcription: data } satisfies TranscriptionCompletedEvent);
  }
}
