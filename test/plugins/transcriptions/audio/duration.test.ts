import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audio, AudioError } from '../../../../plugins/transcriptions/audio';
import { concat, encode, probeSeconds, rateOf, requireTools, run, samplesOf, scratchDir, silence, speak } from './audio-fixtures';

/** A RIFF chunk (padded to an even length, as the format wants). */
const riffChunk = (id: string, body: Buffer): Buffer => {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
};

describe('audio.durationSeconds', () => {
  const scratch = scratchDir();
  const file = (name: string) => join(scratch.dir, name);
  let wav: string;
  let wavSeconds: number;

  beforeAll(() => {
    requireTools('espeak-ng', 'sox', 'ffmpeg', 'ffprobe');
    // About 9 s: long enough that a per-frame error would show.
    const parts = [
      speak(file('a.wav'), 'The quick brown fox jumps over the lazy dog.'),
      silence(file('pause.wav'), 1.25),
      speak(file('b.wav'), 'Please call me back tomorrow morning at nine.'),
    ];
    wav = concat(file('speech.wav'), parts);
    wavSeconds = samplesOf(wav) / rateOf(wav);
  });
  afterAll(() => scratch.remove());

  it('is exact for WAV: the sample count over the rate, as sox counts them', async () => {
    expect(wavSeconds).toBeGreaterThan(6);
    expect(await audio.durationSeconds(wav, 'wav')).toBe(wavSeconds);
  });

  it('reads WAV headers with extra chunks around the data (LIST, an odd-sized one, one after the data)', async () => {
    const original = readFileSync(wav);
    const fmt = original.subarray(12, 12 + 8 + original.readUInt32LE(16));
    const data = original.subarray(original.indexOf('data', 12, 'latin1'));
    const list = riffChunk('LIST', Buffer.from('INFOISFT\x05\0\0\0test\0', 'latin1'));
    const odd = riffChunk('junk', Buffer.from('odd'));
    const after = riffChunk('LIST', Buffer.from('INFOICMT\x04\0\0\0end\0', 'latin1'));
    const body = Buffer.concat([Buffer.from('WAVE'), list, fmt, odd, data, after]);
    const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), body]);
    riff.writeUInt32LE(body.length, 4);
    writeFileSync(file('chunks.wav'), riff);

    expect(probeSeconds(file('chunks.wav'))).toBeCloseTo(wavSeconds, 3);
    expect(await audio.durationSeconds(file('chunks.wav'), 'wav')).toBe(wavSeconds);
  });

  it('reads a streamed WAV (ffmpeg to a pipe: sizes 0xFFFFFFFF, a LIST chunk) to its end', async () => {
    const streamed = encodeToStdout(wav, ['-c:a', 'pcm_s16le', '-f', 'wav']);
    expect(streamed.readUInt32LE(4)).toBe(0xffffffff);
    expect(streamed.indexOf('LIST', 12, 'latin1')).toBeGreaterThan(0);
    expect(streamed.readUInt32LE(streamed.indexOf('data', 12, 'latin1') + 4)).toBe(0xffffffff);
    writeFileSync(file('streamed.wav'), streamed);
    expect(await audio.durationSeconds(file('streamed.wav'), 'wav')).toBe(wavSeconds);
  });

  it.each([
    ['mp3', 'speech.mp3', ['-c:a', 'libmp3lame'], undefined],
    ['m4a', 'speech.m4a', ['-c:a', 'aac'], undefined],
    ['ogg', 'speech.opus', ['-c:a', 'libopus'], 'ogg'],
    ['ogg', 'speech.ogg', ['-c:a', 'libvorbis'], undefined],
    ['webm', 'speech.webm', ['-c:a', 'libopus'], undefined],
  ] as const)('measures %s (%s) within 60 ms of ffprobe', async (format, name, codec, container) => {
    const path = encode(wav, file(name), [...codec], container);
    const probed = probeSeconds(path);
    expect(probed).toBeCloseTo(wavSeconds, 0);
    expect(Math.abs((await audio.durationSeconds(path, format)) - probed)).toBeLessThan(0.06);
  });

  it('measures a WebM without a Duration element (as browsers record it) by decoding it', async () => {
    const out = file('recorded.webm');
    writeFileSync(out, encodeToStdout(wav, ['-c:a', 'libopus', '-f', 'webm']));
    expect(Number.isNaN(probeSeconds(out))).toBe(true); // ffprobe: "N/A"
    expect(Math.abs((await audio.durationSeconds(out, 'webm')) - wavSeconds)).toBeLessThan(0.06);
  });

  it('refuses a truncated WAV, a WAV cut inside its header, and a corrupt M4A with AudioError', async () => {
    const whole = readFileSync(wav);
    writeFileSync(file('truncated.wav'), whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(audio.durationSeconds(file('truncated.wav'), 'wav')).rejects.toThrow(AudioError);
    await expect(audio.durationSeconds(file('truncated.wav'), 'wav')).rejects.toThrow(/truncated: its data chunk declares \d+ bytes, the file holds \d+/);

    writeFileSync(file('header-only.wav'), whole.subarray(0, 30));
    await expect(audio.durationSeconds(file('header-only.wav'), 'wav')).rejects.toThrow(AudioError);

    const m4a = readFileSync(encode(wav, file('whole.m4a'), ['-c:a', 'aac']));
    writeFileSync(file('corrupt.m4a'), Buffer.concat([m4a.subarray(0, 32), Buffer.alloc(4096, 0x5a)]));
    await expect(audio.durationSeconds(file('corrupt.m4a'), 'm4a')).rejects.toThrow(AudioError);

    await expect(audio.durationSeconds(file('missing.mp3'), 'mp3')).rejects.toThrow(AudioError);
  });
});

/** ffmpeg writing to a pipe cannot go back to fill in sizes and durations. */
const encodeToStdout = (input: string, args: string[]): Buffer => run('ffmpeg', ['-nostdin', '-v', 'error', '-i', input, ...args, 'pipe:1']);
