/**
 * The audio a user brings to a transcription, as the transcriptions plugin reads it
 * (contract between the plugin's job and its audio module; implemented in ./index.ts).
 */

export type AudioFormat = 'wav' | 'mp3' | 'm4a' | 'ogg' | 'webm';

export interface SniffedAudio {
  format: AudioFormat;
  /** The media type to store and send it with (`audio/wav`, `audio/mpeg`, `audio/mp4`, `audio/ogg`, `audio/webm`). */
  mimeType: string;
}

/** One piece of a long recording, cut at a silence, as its own file. */
export interface AudioChunk {
  /** A file the caller may read and must delete (`cleanup`). */
  path: string;
  format: AudioFormat;
  mimeType: string;
  /** Where the chunk starts in the whole recording: segment times of the chunk are shifted by it. */
  offsetSeconds: number;
  durationSeconds: number;
}

export interface AudioModule {
  /** The format by the file's first bytes (at least 64 of them), never by its name; null when it is none we take. */
  sniff(head: Buffer): SniffedAudio | null;
  /** The duration of the file in seconds, measured from its content; throws an AudioError for a file that cannot be read. */
  durationSeconds(path: string, format: AudioFormat): Promise<number>;
  /**
   * The duration from the file's first bytes (at least 4 KiB, or the whole file) and its
   * size, when they tell it (WAV); null when the whole file must be read. Throws an
   * AudioError as `durationSeconds` does.
   */
  durationFromHead(head: Buffer, size: number, format: AudioFormat): Promise<number | null>;
  /**
   * The recording cut into pieces of at most `maxChunkSeconds`, each cut made at the
   * quietest moment near the limit (a silence between words, not mid-word); one chunk (the
   * file itself, offset 0) when it is short enough. `cleanup` deletes what was written.
   */
  split(path: string, format: AudioFormat, options: { maxChunkSeconds: number; workDir: string }): Promise<{ chunks: AudioChunk[]; cleanup(): Promise<void> }>;
}

/** Audio that cannot be read or cut (corrupt, truncated, a format the tools at hand cannot decode): the transcription fails with `message`. */
export class AudioError extends Error {
  override readonly name = 'AudioError';
}
