import { ValidationError, configRef, coreServices, type Egress, type PluginConfig } from '../../../core';
import { ImportSourceError, type ImportItem, type ImportMediaReader, type MediaFile, type MediaUpload } from '../../tables';
import { audio } from '../audio';
import { AudioError, type AudioFormat } from '../audio/audio-types';
import { transcriptionsConfig } from '../config';
import { ACCEPTED_FORMATS, maxBytesOf } from '../intake';
import { ProviderError } from '../provider/transcription-client';
import { transcribeRecording } from '../provider/transcribe-recording';
import { segmentColumns, segmentRows } from './segment-rows';

const deps = { egress: coreServices.egress, config: configRef(transcriptionsConfig) };

interface ReaderDeps {
  egress: Egress;
  config: PluginConfig<typeof transcriptionsConfig>;
}

/** What `accept` measured, kept with the import for `read` (the job does not measure again). */
type AudioOptions = {
  audio_format: AudioFormat;
  mime_type: string;
  duration_seconds: number;
};

const settingsOf = (given: Readonly<Record<string, unknown>>) => (given as unknown as ReaderDeps).config.all();

/**
 * Audio table imports (`POST /data/import/file` with a recording): the transcriptions
 * plugin's reader for the tables plugin. The upload is judged as a transcription's is:
 * by its content (the audio module's sniff), within TRANSCRIPTION_MAX_FILE_MB and
 * TRANSCRIPTION_MAX_SECONDS, each refusal a 422 at `file`. The import job then sends it
 * to the same provider, long recordings cut at silences and stitched, from its prepare
 * (no transaction open), and the table gets one row per segment.
 */
export const audioTableReader: ImportMediaReader = {
  format: 'audio',
  accepts: ACCEPTED_FORMATS,
  deps,
  // Without a provider configured the tables plugin answers as if no reader were installed.
  available: (given) => settingsOf(given).baseUrl !== '',

  async accept(upload: MediaUpload, given): Promise<AudioOptions | null> {
    const settings = settingsOf(given);
    const sniffed = audio.sniff(upload.head);
    if (!sniffed) return null;
    const refuse = (message: string) => ValidationError.field('file', message);
    if (upload.size > maxBytesOf(settings)) throw refuse(`is larger than the limit of ${settings.maxFileMb} MiB for audio (TRANSCRIPTION_MAX_FILE_MB)`);
    let seconds: number;
    try {
      seconds = await audio.durationSeconds(upload.path, sniffed.format);
    } catch (error) {
      if (error instanceof AudioError) throw refuse(`cannot be read as ${sniffed.format} audio: ${error.message}`);
      throw error;
    }
    if (seconds > settings.maxSeconds) {
      throw refuse(`is ${Math.round(seconds)} seconds long, over the limit of ${settings.maxSeconds} seconds (TRANSCRIPTION_MAX_SECONDS)`);
    }
    return { audio_format: sniffed.format, mime_type: sniffed.mimeType, duration_seconds: seconds };
  },

  async *read(file: MediaFile, given): AsyncGenerator<ImportItem> {
    const { egress } = given as unknown as ReaderDeps;
    const settings = settingsOf(given);
    const options = file.options as unknown as AudioOptions;
    let segments;
    try {
      const result = await transcribeRecording(
        {
          egress,
          audio,
          chunkSeconds: settings.chunkSeconds,
          provider: { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs },
        },
        { path: file.path, format: options.audio_format, mimeType: options.mime_type, durationSeconds: options.duration_seconds, language: null },
      );
      segments = result.segments;
    } catch (error) {
      // What another try would repeat fails the import now; the rest (429, 5xx, the network) is retried with the import job.
      if (error instanceof AudioError || (error instanceof ProviderError && !error.retryable)) throw new ImportSourceError(error.message);
      throw error;
    }
    if (segments.length === 0) throw new ImportSourceError('The transcription server heard no speech in the recording');
    yield segmentColumns();
    yield* segmentRows(segments);
  },
};
