import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { AudioError, type AudioFormat } from './audio-types';

/**
 * The ffmpeg to decode with: `FFMPEG_PATH` when set, else the first `ffmpeg` on PATH;
 * null when there is none (compressed recordings are then measured, not cut). Looked up
 * at each call, so installing ffmpeg needs no restart.
 */
export async function findFfmpeg(): Promise<string | null> {
  const configured = process.env.FFMPEG_PATH;
  if (configured) {
    if (await isExecutable(configured)) return configured;
    throw new AudioError(`FFMPEG_PATH names ${configured}, which is not an executable file`);
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg');
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

const isExecutable = (path: string): Promise<boolean> =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

// What transcription servers want, and what keeps a decoded hour small: 16 kHz mono.
const DECODED_RATE = 16000;

// The demuxer is the one the sniffed format names, and paths are `file:` URLs: ffmpeg
// left to guess would also follow playlists (HLS, concat) and URLs a user's file names.
const DEMUXERS: Record<AudioFormat, string> = { wav: 'wav', mp3: 'mp3', m4a: 'mov', ogg: 'ogg', webm: 'matroska' };
const INPUT = (input: string, format: AudioFormat) => [
  ...['-nostdin', '-hide_banner', '-v', 'error', '-protocol_whitelist', 'file', '-f', DEMUXERS[format], '-i', `file:${input}`],
  ...['-vn', '-map_metadata', '-1', '-ac', '1', '-ar', String(DECODED_RATE)],
];

/** Decodes a recording into a 16 kHz mono 16-bit WAV file at `output`. */
export async function decodeToWav(ffmpeg: string, input: string, format: AudioFormat, output: string): Promise<void> {
  await run(ffmpeg, [...INPUT(input, format), '-c:a', 'pcm_s16le', '-f', 'wav', '-y', `file:${output}`], null);
}

/**
 * The duration of a recording whose container does not say it (WebM from a browser's
 * MediaRecorder has no Duration element), by decoding it and counting the samples.
 */
export async function decodedSeconds(ffmpeg: string, input: string, format: AudioFormat): Promise<number> {
  let bytes = 0;
  await run(ffmpeg, [...INPUT(input, format), '-f', 's16le', 'pipe:1'], (chunk) => (bytes += chunk.length));
  return Math.floor(bytes / 2) / DECODED_RATE;
}

function run(ffmpeg: string, args: string[], onStdout: ((chunk: Buffer) => void) | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', onStdout ? 'pipe' : 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)));
    if (onStdout) child.stdout!.on('data', onStdout);
    child.on('error', (error) => reject(new AudioError(`ffmpeg could not be run (${ffmpeg}): ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new AudioError(`ffmpeg could not decode this recording (${signal ?? `exit code ${code}`}): ${lastLine(stderr)}`));
    });
  });
}

const lastLine = (text: string): string => text.trim().split('\n').slice(-1)[0] || 'no message';
