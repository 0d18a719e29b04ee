import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AudioError, type AudioChunk, type AudioFormat } from './audio-types';
import { durationSeconds } from './duration';
import { decodeToWav, findFfmpeg } from './ffmpeg';
import { quietestCut } from './silence';
import { MIME_TYPES } from './sniff';
import { isPcm16, openForReading, pcm16Header, readAt, readWavInfo, type WavInfo } from './wav';

// Cuts are looked for in the last 20% before each limit, at most this long a stretch:
// speech pauses every few seconds, and the stretch is read into memory.
const SEARCH_SHARE = 0.2;
const MAX_SEARCH_SECONDS = 30;

export interface Split {
  chunks: AudioChunk[];
  cleanup(): Promise<void>;
}

/**
 * 16-bit PCM WAV is cut here, in TypeScript, at its own sample rate and channels. Any
 * other recording longer than the limit is decoded by ffmpeg into 16 kHz mono WAV first,
 * then cut the same way (its chunks are WAV). Offsets and durations come from sample
 * counts, so stitched segment times are exact to the sample.
 */
export async function split(path: string, format: AudioFormat, options: { maxChunkSeconds: number; workDir: string }): Promise<Split> {
  const { maxChunkSeconds, workDir } = options;
  if (!(maxChunkSeconds > 0) || !Number.isFinite(maxChunkSeconds)) throw new RangeError(`maxChunkSeconds must be a positive number (got ${maxChunkSeconds})`);

  const wav = format === 'wav' ? await readWavInfo(path) : null;
  const seconds = wav ? wav.frames / wav.sampleRate : await durationSeconds(path, format);
  if (seconds <= maxChunkSeconds) return whole(path, format, seconds);
  if (wav && isPcm16(wav)) return inWorkDir(workDir, (dir) => cutWav(path, wav, maxChunkSeconds, dir));

  const ffmpeg = await findFfmpeg();
  if (!ffmpeg) {
    const send = format === 'wav' ? 'send 16-bit PCM WAV' : 'send WAV';
    throw new AudioError(`this recording is longer than ${maxChunkSeconds} s and its format needs ffmpeg to be cut; install ffmpeg or ${send}`);
  }
  return inWorkDir(workDir, async (dir) => {
    const decoded = join(dir, 'decoded.wav');
    await decodeToWav(ffmpeg, path, format, decoded);
    const info = await readWavInfo(decoded);
    // A container's declared duration can be a little longer than what it decodes to.
    const chunks = info.frames <= Math.floor(maxChunkSeconds * info.sampleRate) ? [chunk(decoded, 0, info.frames, info.sampleRate)] : await cutWav(decoded, info, maxChunkSeconds, dir);
    if (chunks.length > 1) await rm(decoded, { force: true });
    return chunks;
  });
}

function whole(path: string, format: AudioFormat, seconds: number): Split {
  // The caller's own file: nothing was written, nothing to delete.
  return { chunks: [{ path, format, mimeType: MIME_TYPES[format], offsetSeconds: 0, durationSeconds: seconds }], cleanup: async () => {} };
}

/** Runs `write` in a folder of its own under workDir, which cleanup (or a failure) removes. */
async function inWorkDir(workDir: string, write: (dir: string) => Promise<AudioChunk[]>): Promise<Split> {
  await mkdir(workDir, { recursive: true });
  const dir = await mkdtemp(join(workDir, 'audio-split-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    return { chunks: await write(dir), cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function cutWav(path: string, info: WavInfo, maxChunkSeconds: number, dir: string): Promise<AudioChunk[]> {
  const maxFrames = Math.floor(maxChunkSeconds * info.sampleRate);
  if (maxFrames < 1) throw new RangeError(`maxChunkSeconds ${maxChunkSeconds} is shorter than one sample`);
  const searchFrames = Math.min(Math.round(maxFrames * SEARCH_SHARE), MAX_SEARCH_SECONDS * info.sampleRate);

  const bounds: number[] = [0];
  const file = await openForReading(path);
  try {
    for (let start = 0; info.frames - start > maxFrames; ) {
      const limit = start + maxFrames;
      const from = Math.max(start + 1, limit - searchFrames);
      const pcm = await readAt(file, info.dataOffset + from * info.blockAlign, (limit - from) * info.blockAlign);
      start = from + Math.max(1, quietestCut(pcm, info.channels, info.sampleRate));
      bounds.push(start);
    }
  } finally {
    await file.close();
  }
  bounds.push(info.frames);

  const chunks: AudioChunk[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const out = join(dir, `chunk-${String(i + 1).padStart(3, '0')}.wav`);
    await writeChunk(path, info, bounds[i], bounds[i + 1], out);
    chunks.push(chunk(out, bounds[i], bounds[i + 1], info.sampleRate));
  }
  return chunks;
}

const chunk = (path: string, from: number, to: number, sampleRate: number): AudioChunk => ({
  path,
  format: 'wav',
  mimeType: MIME_TYPES.wav,
  offsetSeconds: from / sampleRate,
  durationSeconds: (to - from) / sampleRate,
});

async function writeChunk(source: string, info: WavInfo, from: number, to: number, out: string): Promise<void> {
  const header = pcm16Header(info.channels, info.sampleRate, to - from);
  const samples = createReadStream(source, { start: info.dataOffset + from * info.blockAlign, end: info.dataOffset + to * info.blockAlign - 1 });
  await pipeline(
    async function* () {
      yield header;
      yield* samples;
    },
    createWriteStream(out),
  );
}
