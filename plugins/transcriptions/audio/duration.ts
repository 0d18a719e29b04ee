import { AudioError, type AudioFormat } from './audio-types';
import { decodedSeconds, findFfmpeg } from './ffmpeg';
import { readWavInfo, wavInfoOfHead } from './wav';

/**
 * A WAV file's duration is exact from its header (whole frames over the sample rate).
 * Other formats are read by music-metadata (pure JavaScript: no tool needed), which
 * scans MP3 frames and reads the durations MP4, Ogg and WebM containers declare; what it
 * cannot tell (a browser's WebM without a Duration) ffmpeg measures, when there is one.
 */
export async function durationSeconds(path: string, format: AudioFormat): Promise<number> {
  const seconds = format === 'wav' ? await wavSeconds(path) : await compressedSeconds(path, format);
  if (!(seconds > 0)) throw new AudioError(`this ${format} recording holds no audio`);
  return seconds;
}

/**
 * The duration told by a file's first bytes and its size alone: a WAV file's header (an
 * upload measured as it streams into storage, never read back). Null when they do not
 * tell it (other formats, a header longer than `head`): measure the whole file then.
 */
export async function durationFromHead(head: Buffer, size: number, format: AudioFormat): Promise<number | null> {
  if (format !== 'wav') return null;
  const info = await wavInfoOfHead(head, size);
  if (!info) return null;
  const seconds = info.frames / info.sampleRate;
  if (!(seconds > 0)) throw new AudioError('this wav recording holds no audio');
  return seconds;
}

async function wavSeconds(path: string): Promise<number> {
  const info = await readWavInfo(path);
  return info.frames / info.sampleRate;
}

async function compressedSeconds(path: string, format: AudioFormat): Promise<number> {
  // music-metadata is ESM-only; loaded on first use (Node's require of ESM), not at boot.
  const { parseFile } = await import('music-metadata');
  let declared: number | undefined;
  try {
    declared = (await parseFile(path, { duration: true, skipCovers: true })).format.duration;
  } catch (error) {
    throw new AudioError(`this ${format} recording cannot be read: ${(error as Error).message}`);
  }
  if (declared !== undefined && Number.isFinite(declared) && declared > 0) return declared;
  const ffmpeg = await findFfmpeg();
  if (!ffmpeg) throw new AudioError(`this ${format} recording does not declare its duration, and measuring it needs ffmpeg; install ffmpeg or send WAV`);
  return decodedSeconds(ffmpeg, path, format);
}
