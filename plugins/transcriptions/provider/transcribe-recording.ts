import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Egress } from '../../../core';
import type { AudioFormat, AudioModule } from '../audio/audio-types';
import type { StoredSegment, TranscriptionResult } from '../entities';
import { transcribeAudio, type ProviderSegment, type ProviderSettings } from './transcription-client';

export interface Recording {
  path: string;
  format: AudioFormat;
  mimeType: string;
  durationSeconds: number;
  language: string | null;
}

/** Three decimals: what a segment time means, without float noise from the offsets. */
const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * Who spoke each segment, as the conversation records it. A rule a user can predict
 * without knowing the server: when the server names speakers, the first one heard is
 * the agent (a call centre's recording starts with the agent's greeting) and every other
 * label, or a segment without one, is the customer; when it names none, every segment is
 * the customer's.
 */
export function assignSpeakers(segments: Array<ProviderSegment & { start: number }>): StoredSegment[] {
  const labelOf = (segment: ProviderSegment) => (segment.speaker === undefined || segment.speaker === null || segment.speaker === '' ? null : String(segment.speaker));
  const first = segments.map(labelOf).find((label) => label !== null) ?? null;
  return segments.map((segment) => {
    const label = labelOf(segment);
    return { start: segment.start, end: segment.end, speaker: first !== null && label === first ? 'agent' : 'customer', speaker_label: label, text: segment.text.trim() };
  });
}

/**
 * Transcribes a whole recording: at most TRANSCRIPTION_CHUNK_SECONDS per request; a
 * longer one is cut at silences by the audio module, each piece sent in turn, its
 * segments shifted by where it starts and stitched in order. Any failure of a piece
 * fails the whole (the job's retry sends every piece again).
 */
export async function transcribeRecording(
  deps: { egress: Egress; audio: AudioModule; provider: ProviderSettings; chunkSeconds: number },
  recording: Recording,
): Promise<TranscriptionResult> {
  const { egress, audio, provider, chunkSeconds } = deps;
  const single = recording.durationSeconds <= chunkSeconds;
  const workDir = single ? null : await mkdtemp(path.join(tmpdir(), 'transcription-'));
  try {
    const { chunks, cleanup } = single
      ? { chunks: [{ path: recording.path, format: recording.format, mimeType: recording.mimeType, offsetSeconds: 0, durationSeconds: recording.durationSeconds }], cleanup: async () => {} }
      : await audio.split(recording.path, recording.format, { maxChunkSeconds: chunkSeconds, workDir: workDir! });
    try {
      const texts: string[] = [];
      const segments: Array<ProviderSegment & { start: number }> = [];
      let language: string | null = null;
      let end = 0;
      for (const [index, chunk] of chunks.entries()) {
        const answer = await transcribeAudio(egress, provider, { bytes: await readFile(chunk.path), fileName: `audio-${index + 1}.${chunk.format}`, mimeType: chunk.mimeType }, recording.language);
        if (answer.text.trim()) texts.push(answer.text.trim());
        language ??= answer.language;
        for (const segment of answer.segments) segments.push({ ...segment, start: ms(segment.start + chunk.offsetSeconds), end: ms(segment.end + chunk.offsetSeconds) });
        end = chunk.offsetSeconds + (answer.duration ?? chunk.durationSeconds);
      }
      // A server that gives text but no segments: one segment spanning the recording, so the conversation still gets the words.
      if (segments.length === 0 && texts.length > 0) segments.push({ start: 0, end: ms(end), text: texts.join(' ') });
      return { text: texts.join(' '), language, duration: ms(end), segments: assignSpeakers(segments) };
    } finally {
      await cleanup();
    }
  } finally {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
}
