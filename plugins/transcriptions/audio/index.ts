import type { AudioModule } from './audio-types';
import { durationFromHead, durationSeconds } from './duration';
import { sniff } from './sniff';
import { split } from './split';

export * from './audio-types';

/**
 * The recordings users bring, as the transcriptions plugin reads them: their format by
 * content, their duration by content, and long ones cut at silences into chunks a
 * transcription server takes. Pure TypeScript for WAV and for measuring every format;
 * ffmpeg (on PATH, or FFMPEG_PATH) only to cut compressed recordings.
 */
export const audio: AudioModule = { sniff, durationSeconds, durationFromHead, split };
