import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServiceRef, type Egress } from '../../core';
import { AudioError, type AudioModule } from './audio/audio-types';
import type { TranscriptionsSettings } from './config';
import { ACCEPTED_FORMATS, maxBytesOf } from './intake';
import { transcribeRecording } from './provider/transcribe-recording';
import { ProviderError } from './provider/transcription-client';

/**
 * Speech to text for other plugins (a channel's voice note): audio in hand, its words out,
 * through this plugin's provider with the same checks a transcription gets (the format
 * by content, TRANSCRIPTION_MAX_FILE_MB, TRANSCRIPTION_MAX_SECONDS; long audio cut at
 * silences). Nothing is stored and no conversation is made: the caller keeps the words.
 * Call it with no transaction open: the provider may take seconds.
 */
export interface SpeechToText {
  /** Whether a provider is configured (TRANSCRIPTION_BASE_URL); `transcribe` refuses otherwise. */
  available(): boolean;
  /** The largest audio taken, in bytes (TRANSCRIPTION_MAX_FILE_MB). */
  readonly maxBytes: number;
  /** The words spoken ('' when none were heard). Throws SpeechToTextError. */
  transcribe(audio: { bytes: Buffer }, options?: { language?: string | null }): Promise<{ text: string; language: string | null; durationSeconds: number }>;
}

/** A transcription that failed; `retryable`: the provider's 429, 5xx or the network, worth another try later. */
export class SpeechToTextError extends Error {
  override readonly name = 'SpeechToTextError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export const speechToTextRef = createServiceRef<SpeechToText>('transcriptions.speechToText');

export function createSpeechToText(deps: { egress: Egress; audio: AudioModule; settings: TranscriptionsSettings }): SpeechToText {
  const { egress, audio, settings } = deps;
  const maxBytes = maxBytesOf(settings);
  return {
    available: () => settings.baseUrl !== '',
    maxBytes,
    async transcribe({ bytes }, options = {}) {
      if (settings.baseUrl === '') throw new SpeechToTextError('No transcription server is configured (TRANSCRIPTION_BASE_URL)', false);
      if (bytes.length === 0) throw new SpeechToTextError('The audio is empty', false);
      if (bytes.length > maxBytes) throw new SpeechToTextError(`The audio is larger than the limit of ${settings.maxFileMb} MiB (TRANSCRIPTION_MAX_FILE_MB)`, false);
      const sniffed = audio.sniff(bytes.subarray(0, 4096));
      if (!sniffed) throw new SpeechToTextError(`The audio is not in an accepted format (${ACCEPTED_FORMATS}), judged by its content`, false);
      const dir = await mkdtemp(path.join(tmpdir(), 'speech-'));
      try {
        const file = path.join(dir, `audio.${sniffed.format}`);
        await writeFile(file, bytes);
        const durationSeconds = await audio.durationSeconds(file, sniffed.format);
        if (durationSeconds > settings.maxSeconds) throw new SpeechToTextError(`The audio is ${Math.round(durationSeconds)} seconds long, over the limit of ${settings.maxSeconds} seconds`, false);
        const result = await transcribeRecording(
          { egress, audio, chunkSeconds: settings.chunkSeconds, provider: { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs } },
          { path: file, format: sniffed.format, mimeType: sniffed.mimeType, durationSeconds, language: options.language ?? null },
        );
        return { text: result.text, language: result.language, durationSeconds };
      } catch (error) {
        if (error instanceof ProviderError) throw new SpeechToTextError(error.message, error.retryable);
        if (error instanceof AudioError) throw new SpeechToTextError(`The audio cannot be read as ${sniffed.format}: ${error.message}`, false);
        throw error;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
