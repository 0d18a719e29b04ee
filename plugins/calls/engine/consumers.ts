import { Call } from '../entities';
import { TelephonySendError } from '../driver';
import { CALL_TOPICS, type CallRefPayload, type PerformPayload, type RecordingPayload } from '../topics';
import { voiceConfig } from './agent-line';
import { lockCall } from './call-rows';
import type { CallDeps } from './deps';
import { openLine } from './line';
import { markEnding } from './transitions';

const RETRY = { attempts: 6, backoff: { initialMs: 1000, factor: 3, maxMs: 60_000 } };

/** A provider call that may pass is tried again by the bus; one that will not is logged and dropped. */
function rethrowIfRetryable(deps: CallDeps, error: unknown, what: string, callUuid: string): void {
  if (error instanceof TelephonySendError && !error.retryable) {
    deps.logger.warn(`${what} refused by the provider`, { call_uuid: callUuid, error: error.message });
    return;
  }
  throw error;
}

/**
 * The calls plugin's background work: instructions played on a live call (a deadline's
 * closing line), the deadline of `max_call_duration_seconds`, and recordings fetched
 * into DATA_DIR. Provider calls run in `prepare`, with no transaction open.
 */
export function runCallConsumers(deps: CallDeps): void {
  deps.bus.consume<PerformPayload, void>(
    {
      name: 'perform',
      topics: [CALL_TOPICS.perform],
      concurrency: 8,
      retry: RETRY,
      prepare: async (message, { em }) => {
        const call = await em.findOne(Call, { uuid: message.payload.call_uuid });
        if (!call?.externalId) return;
        const line = await openLine(deps, em, call);
        if (!line) return;
        try {
          const { instructions } = message.payload;
          if (instructions.length === 1 && instructions[0].type === 'hangup') await line.driver.hangup(line.context, call.externalId);
          else await line.driver.perform(line.context, call.externalId, instructions);
        } catch (error) {
          rethrowIfRetryable(deps, error, 'a call instruction', call.uuid);
        }
      },
    },
    () => {},
  );

  deps.bus.consume<CallRefPayload>({ name: 'deadline', topics: [CALL_TOPICS.deadline], concurrency: 4 }, async (message, { em }) => {
    const call = await lockCall(em, message.payload.call_uuid);
    if (!call || call.status !== 'in_progress' || call.endingReason) return;
    const agent = await deps.agents.getWithoutSlots(call.agentUuid);
    const voice = voiceConfig(agent ?? { agent_uuid: call.agentUuid, name: '' });
    markEnding(call, 'max_duration');
    const line = voice.maxCallDurationMessage;
    if (line) await deps.conversations.record(em, call.conversationUuid, { sender: 'agent', content: line });
    const payload: PerformPayload = {
      call_uuid: call.uuid,
      instructions: [...(line ? [{ type: 'say' as const, text: line, language: voice.language, voice: voice.voice }] : []), { type: 'hangup' }],
    };
    await deps.bus.publish(CALL_TOPICS.perform, payload);
  });

  deps.bus.consume<RecordingPayload, string | null>(
    {
      name: 'recording',
      topics: [CALL_TOPICS.recording],
      concurrency: 2,
      retry: RETRY,
      prepare: async (message, { em }) => {
        const call = await em.findOne(Call, { uuid: message.payload.call_uuid });
        if (!call) return null;
        const line = await openLine(deps, em, call);
        if (!line?.driver.fetchRecording) return null;
        const audio = await line.driver.fetchRecording(line.context, message.payload.url);
        // One file per call, kept by the storage plugin (DATA_DIR or an S3-compatible store).
        const key = `recordings/${call.tenantUuid}/${call.uuid}.wav`;
        // Asked for as WAV: stored as `audio/wav` whatever the provider calls it (`audio/x-wav`).
        await deps.storage.put(key, audio.body, { contentType: 'audio/wav', size: audio.body.length });
        return key;
      },
    },
    async (message, { em, prepared }) => {
      if (!prepared) return;
      const call = await lockCall(em, message.payload.call_uuid);
      if (call) call.recordingPath = prepared;
    },
  );
}
