import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService, ConfigValues, Egress, Logger, SecretsService } from '../../../core';
import type { ChannelDrivers } from '../channel-drivers';
import type { channelsConfig } from '../channels-config';
import { findConnection, openConnection } from '../connections/connection-store';
import { InboundMediaError, type InboundMedia } from '../driver';
import { CHANNEL_TOPICS, type InboundPayload } from '../topics';
import type { AudioTranscription } from './audio-transcriber';

export interface InboundAudioDeps {
  bus: BusService;
  drivers: ChannelDrivers;
  secrets: SecretsService;
  egress: Egress;
  logger: Logger;
  transcription: AudioTranscription;
  settings: ConfigValues<typeof channelsConfig>;
}

/** The audio item a message's turn is about: its first. */
export const audioOf = (media: readonly InboundMedia[]): InboundMedia | undefined => media.find((item) => item.type === 'audio');

/** Whether an inbound message goes through the audio step before its turn: it has audio, its driver can fetch it, and a transcriber is at hand. */
export const needsTranscription = (media: readonly InboundMedia[] | undefined, canFetch: boolean, transcription: AudioTranscription): boolean =>
  canFetch && !!media && audioOf(media) !== undefined && transcription.current() !== null;

/**
 * The words of the message's voice note. Fetching from the provider and transcribing both
 * run here, in `prepare`: no transaction is open while either waits.
 */
async function transcribe(deps: InboundAudioDeps, em: EntityManager, payload: InboundPayload): Promise<string> {
  const audio = audioOf(payload.media);
  const transcriber = deps.transcription.current();
  if (!audio || !transcriber) throw new InboundMediaError('no audio, or no transcriber any more', false);
  const row = await findConnection(em, payload.connection_uuid);
  const driver = row ? deps.drivers.get(row.provider) : undefined;
  if (!row || !driver?.fetchMedia) throw new InboundMediaError('the channel connection or its driver is gone', false);
  const context = { connection: openConnection(deps.secrets, row), egress: deps.egress, apiBaseUrl: deps.drivers.apiBaseUrl(driver), hookUrl: payload.hook_url, logger: deps.logger };
  const fetched = await driver.fetchMedia(context, audio, { maxBytes: transcriber.maxBytes });
  return (await transcriber.transcribe(fetched)).text.trim();
}

/**
 * The audio step of inbound messages (`channels.audio`): the voice note is fetched from
 * its provider through the connection's driver and transcribed, then the message goes on
 * to its turn (`channels.inbound`) with the transcript. A failure of the moment (429,
 * 5xx, network) is retried by the bus with backoff (CHANNELS_AUDIO_ATTEMPTS); a lasting
 * one, or the last try's, sends the message on without a transcript, so the customer is
 * still answered (the agent gets a placeholder).
 */
export function runInboundAudio(deps: InboundAudioDeps): void {
  const { bus, logger, settings } = deps;
  const attempts = Math.max(1, settings.audioAttempts);
  bus.consume<InboundPayload, { transcript: string | null }>(
    {
      name: 'inbound-audio',
      topics: [CHANNEL_TOPICS.audio],
      concurrency: 4,
      retry: { attempts, backoff: { initialMs: Math.max(1, settings.audioBackoffMs), factor: 4, maxMs: 600_000 } },
      prepare: async (message, { em }) => {
        try {
          return { transcript: await transcribe(deps, em, message.payload) };
        } catch (error) {
          const lasting = error instanceof InboundMediaError && !error.retryable;
          const reason = error instanceof Error ? error.message : String(error);
          if (!lasting && message.attempt < attempts) throw error;
          logger.warn('inbound voice note not transcribed: the agent answers a placeholder', { channel_uuid: message.payload.channel_uuid, attempt: message.attempt, reason });
          return { transcript: null };
        }
      },
    },
    async (message, { prepared }) => {
      const next: InboundPayload = { ...message.payload, transcript: prepared.transcript };
      await bus.publish(CHANNEL_TOPICS.inbound, next);
    },
  );
}
