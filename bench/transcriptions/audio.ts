import { pcm16Header } from '../../plugins/transcriptions/audio/wav';

/**
 * The bench's recordings: synthetic 16 kHz 16-bit mono WAV (no espeak needed), shaped like
 * speech to a silence detector: 2.2 s of a wavering tone, 0.8 s of silence, over and over.
 * Each file carries its id in its first samples (`SBBENCH:000123`, 16 bytes: a click no one
 * hears), so the provider can tell which file each request is, with no field of ours.
 */

export const SAMPLE_RATE = 16_000;
export const FILE_MARK = /SBBENCH:(\d{6})/;
const MARK_BYTES = 16;
const HEADER_BYTES = 44;

const markOf = (id: number) => `SBBENCH:${String(id).padStart(6, '0')}`.padEnd(MARK_BYTES, ' ');

/** The signal every file shares, header included: made once (a minute is 1.9 MB), copied per file. */
function signal(seconds: number): Buffer {
  const frames = Math.round(seconds * SAMPLE_RATE);
  const wav = Buffer.alloc(HEADER_BYTES + frames * 2);
  pcm16Header(1, SAMPLE_RATE, frames).copy(wav, 0);
  let phase = 0;
  for (let i = 0; i < frames; i++) {
    const t = i / SAMPLE_RATE;
    const pitch = 180 + 40 * Math.sin(2 * Math.PI * 0.5 * t);
    phase += (2 * Math.PI * pitch) / SAMPLE_RATE;
    const voiced = t % 3 < 2.2;
    const sample = voiced ? Math.round(8000 * Math.sin(phase) * (0.6 + 0.4 * Math.sin(2 * Math.PI * 4 * t))) : 0;
    wav.writeInt16LE(sample, HEADER_BYTES + i * 2);
  }
  return wav;
}

/** Makes files of `seconds` each, marked with their ids. */
export function recordings(seconds: number): (id: number) => Buffer {
  const base = signal(seconds);
  return (id) => {
    const file = Buffer.from(base);
    file.write(markOf(id), HEADER_BYTES, 'latin1');
    return file;
  };
}
