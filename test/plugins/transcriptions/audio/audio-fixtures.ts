import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real recordings for the audio tests, made by the tools a Debian machine has once
 * `.ci/run` installed them: espeak-ng speaks, sox makes silences and joins, ffmpeg
 * encodes to the compressed formats, ffprobe and sox measure. A missing tool fails the
 * test that needs it with the package to install, it is never skipped.
 */
const PACKAGES: Record<string, string> = { 'espeak-ng': 'espeak-ng', sox: 'sox', ffmpeg: 'ffmpeg', ffprobe: 'ffmpeg' };

export function requireTools(...tools: string[]): void {
  for (const tool of tools) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) {
      throw new Error(`${tool} is not installed: these audio tests make and measure real recordings with it (Debian package ${PACKAGES[tool] ?? tool}; .ci/run installs it)`);
    }
  }
}

export function run(tool: string, args: string[]): Buffer {
  try {
    return execFileSync(tool, args, { maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`${tool} ${args.join(' ')} failed: ${stderr || (error as Error).message}`);
  }
}

export function scratchDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'audio-test-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** espeak-ng's voice as a WAV file (16-bit mono, 22050 Hz). */
export function speak(out: string, text: string): string {
  run('espeak-ng', ['-w', out, text]);
  return out;
}

/** Digital silence in the format espeak-ng writes, so sox can join them. */
export function silence(out: string, seconds: number): string {
  run('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', '-e', 'signed-integer', out, 'trim', '0', String(seconds)]);
  return out;
}

export function concat(out: string, parts: string[]): string {
  run('sox', [...parts, out]);
  return out;
}

/** Encodes with ffmpeg: `codec` arguments such as ['-c:a', 'libmp3lame']. */
export function encode(input: string, out: string, codec: string[], format?: string): string {
  run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', input, ...codec, ...(format ? ['-f', format] : []), out]);
  return out;
}

export const samplesOf = (file: string): number => Number(run('sox', ['--i', '-s', file]).toString().trim());
export const rateOf = (file: string): number => Number(run('sox', ['--i', '-r', file]).toString().trim());
export const probeSeconds = (file: string): number => Number(run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());

/** A WAV file's samples as 16-bit integers, decoded by sox (not by the code under test). */
export function pcmOf(file: string): Int16Array {
  const raw = run('sox', [file, '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-L', '-']);
  const samples = new Int16Array(raw.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = raw.readInt16LE(2 * i);
  return samples;
}

export function rms(samples: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = Math.max(0, from); i < Math.min(samples.length, to); i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / Math.max(1, Math.min(samples.length, to) - Math.max(0, from)));
}

const PHRASES = [
  'Good morning, thank you for calling the support line.',
  'I would like to change the address on my account.',
  'Of course, could you tell me your customer number?',
  'It is four five six, seven eight nine.',
  'Thank you. And what is the new address?',
  'Twelve Oak Street, in Springfield.',
  'Done. Is there anything else I can help you with?',
  'No, that was all. Have a nice day.',
];

/**
 * A conversation of about `seconds`: espeak-ng phrases with pauses of 0.6 to 1.5 s
 * between them. Returns the file and where its pauses are (in seconds), from sox's
 * sample counts of the pieces.
 */
export function conversation(dir: string, seconds: number): { path: string; pauses: Array<[number, number]> } {
  const phrases = PHRASES.map((text, i) => speak(join(dir, `phrase-${i}.wav`), text));
  const pauseLengths = [0.6, 1.5, 0.9, 1.2];
  const pauseFiles = pauseLengths.map((length, i) => silence(join(dir, `pause-${i}.wav`), length));
  const rate = rateOf(phrases[0]);
  const parts: string[] = [];
  const pauses: Array<[number, number]> = [];
  let samples = 0;
  for (let i = 0; samples / rate < seconds; i++) {
    const phrase = phrases[i % phrases.length];
    const pause = pauseFiles[i % pauseFiles.length];
    parts.push(phrase);
    samples += samplesOf(phrase);
    const pauseSamples = samplesOf(pause);
    parts.push(pause);
    pauses.push([samples / rate, (samples + pauseSamples) / rate]);
    samples += pauseSamples;
  }
  return { path: concat(join(dir, 'conversation.wav'), parts), pauses };
}
