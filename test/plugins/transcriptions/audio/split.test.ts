import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { audio, AudioError, type AudioChunk } from '../../../../plugins/transcriptions/audio';
import { conversation, encode, pcmOf, probeSeconds, rateOf, requireTools, rms, run, samplesOf, scratchDir, speak } from './audio-fixtures';

// Quiet enough to be a pause in espeak-ng's speech (its words have an RMS in the
// thousands), with room for a resampler's ripple next to digital silence.
const QUIET_RMS = 100;

describe('audio.split', () => {
  const scratch = scratchDir();
  const file = (name: string) => join(scratch.dir, name);
  const workDir = join(scratch.dir, 'work');
  let talk: { path: string; pauses: Array<[number, number]> };
  let talkSeconds: number;

  beforeAll(() => {
    requireTools('espeak-ng', 'sox', 'ffmpeg', 'ffprobe');
    talk = conversation(scratch.dir, 180);
    talkSeconds = samplesOf(talk.path) / rateOf(talk.path);
  });
  afterAll(() => scratch.remove());
  // A failed test leaves its chunks behind: not the next test's business.
  afterEach(() => rmSync(workDir, { recursive: true, force: true }));

  /** Chunks follow each other with no gap or overlap (to float rounding), and cover the whole recording. */
  const expectContiguous = (chunks: AudioChunk[], total: number, tolerance = 0) => {
    let offset = 0;
    for (const chunk of chunks) {
      expect(chunk.offsetSeconds).toBeCloseTo(offset, 9);
      offset += chunk.durationSeconds;
    }
    expect(Math.abs(offset - total)).toBeLessThanOrEqual(tolerance + 1e-9);
  };

  /** Every cut is inside one of the pauses the conversation was built with. */
  const expectCutsInPauses = (chunks: AudioChunk[], slack = 0) => {
    for (const chunk of chunks.slice(1)) {
      const at = chunk.offsetSeconds;
      const pause = talk.pauses.find(([from, to]) => at > from - slack && at < to + slack);
      expect({ cut: at, pause }).toEqual({ cut: at, pause: expect.any(Array) });
    }
  };

  it('returns a short recording as it is: one chunk, the file itself, nothing to delete', async () => {
    const short = speak(file('short.wav'), 'Just a few words.');
    const mp3 = encode(short, file('short.mp3'), ['-c:a', 'libmp3lame']);
    for (const [path, format] of [[short, 'wav'], [mp3, 'mp3']] as const) {
      const { chunks, cleanup } = await audio.split(path, format, { maxChunkSeconds: 60, workDir });
      expect(chunks).toEqual([{ path, format, mimeType: format === 'wav' ? 'audio/wav' : 'audio/mpeg', offsetSeconds: 0, durationSeconds: await audio.durationSeconds(path, format) }]);
      await cleanup();
      expect(existsSync(path)).toBe(true);
    }
    expect(existsSync(workDir) ? readdirSync(workDir) : []).toEqual([]);
  });

  it('cuts a 3-minute WAV into chunks of at most 60 s, each cut inside a pause, losing no sample', async () => {
    expect(talkSeconds).toBeGreaterThan(180);
    const { chunks, cleanup } = await audio.split(talk.path, 'wav', { maxChunkSeconds: 60, workDir });

    expect(chunks.length).toBe(4);
    chunks.forEach((chunk, i) => {
      expect(chunk).toMatchObject({ format: 'wav', mimeType: 'audio/wav' });
      expect(chunk.durationSeconds).toBeLessThanOrEqual(60);
      // Each cut is looked for in the last 20% before the limit; the last chunk is what remains.
      if (i < chunks.length - 1) expect(chunk.durationSeconds).toBeGreaterThanOrEqual(60 * 0.8);
      // Its own WAV, with a header sox and ffprobe read as the chunk's duration.
      expect(samplesOf(chunk.path) / rateOf(chunk.path)).toBe(chunk.durationSeconds);
      expect(probeSeconds(chunk.path)).toBeCloseTo(chunk.durationSeconds, 3);
    });
    expectContiguous(chunks, talkSeconds);
    expectCutsInPauses(chunks);

    // The samples around each cut (100 ms either side) are quiet.
    const rate = rateOf(talk.path);
    const original = pcmOf(talk.path);
    for (const chunk of chunks.slice(1)) {
      const at = Math.round(chunk.offsetSeconds * rate);
      expect(rms(original, at - rate / 10, at + rate / 10)).toBeLessThan(QUIET_RMS);
    }
    // Joined again, the chunks are the recording, sample for sample.
    const joined = Buffer.concat(chunks.map((chunk) => Buffer.from(pcmOf(chunk.path).buffer)));
    expect(joined.equals(Buffer.from(original.buffer))).toBe(true);

    await cleanup();
    for (const chunk of chunks) expect(existsSync(chunk.path)).toBe(false);
    expect(existsSync(talk.path)).toBe(true);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it.each([
    ['mp3', 'talk.mp3', ['-c:a', 'libmp3lame'], undefined],
    ['ogg', 'talk.opus', ['-c:a', 'libopus'], 'ogg'],
    // (M4A takes the same way; ffmpeg's AAC encoder is too slow to make 3 minutes of it here.)
  ] as const)('cuts a long %s through ffmpeg into 16 kHz WAV chunks, at the same pauses', async (format, name, codec, container) => {
    const path = encode(talk.path, file(name), [...codec], container);
    const { chunks, cleanup } = await audio.split(path, format, { maxChunkSeconds: 60, workDir });

    expect(chunks.length).toBe(4);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ format: 'wav', mimeType: 'audio/wav' });
      expect(rateOf(chunk.path)).toBe(16000);
      expect(samplesOf(chunk.path) / 16000).toBe(chunk.durationSeconds);
      expect(chunk.durationSeconds).toBeLessThanOrEqual(60);
    }
    // Encoders pad a little (AAC's priming, whole MP3 frames) and ffmpeg trims it when decoding: the total is the original's within 50 ms.
    expectContiguous(chunks, talkSeconds, 0.05);
    expectCutsInPauses(chunks, 0.05);
    for (let i = 0; i + 1 < chunks.length; i++) {
      // The end of one chunk and the start of the next are quiet.
      const before = pcmOf(chunks[i].path);
      const after = pcmOf(chunks[i + 1].path);
      expect(rms(before, before.length - 1600, before.length)).toBeLessThan(QUIET_RMS);
      expect(rms(after, 0, 1600)).toBeLessThan(QUIET_RMS);
    }
    await cleanup();
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('cuts a long WAV that is not 16-bit PCM (32-bit float) through ffmpeg', async () => {
    const float = file('talk-float.wav');
    run('sox', [talk.path, '-e', 'floating-point', '-b', '32', float]);
    const { chunks, cleanup } = await audio.split(float, 'wav', { maxChunkSeconds: 60, workDir });
    expect(chunks.map((chunk) => rateOf(chunk.path))).toEqual([16000, 16000, 16000, 16000]);
    expectContiguous(chunks, talkSeconds, 0.001);
    expectCutsInPauses(chunks);
    await cleanup();
  });

  it('uses the ffmpeg FFMPEG_PATH names', async () => {
    const calls = file('ffmpeg-calls.log');
    const wrapper = file('ffmpeg-wrapper.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho called >> '${calls}'\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const mp3 = encode(talk.path, file('via-wrapper.mp3'), ['-c:a', 'libmp3lame']);
    const { chunks, cleanup } = await withEnv({ FFMPEG_PATH: wrapper }, () => audio.split(mp3, 'mp3', { maxChunkSeconds: 60, workDir }));
    expect(chunks.length).toBe(4);
    expect(readFileSync(calls, 'utf8')).toBe('called\n');
    await cleanup();

    await expect(withEnv({ FFMPEG_PATH: file('no-such-ffmpeg') }, () => audio.split(mp3, 'mp3', { maxChunkSeconds: 60, workDir }))).rejects.toThrow(/FFMPEG_PATH names .*no-such-ffmpeg/);
  });

  it('without ffmpeg, still cuts 16-bit WAV but refuses to cut a long compressed recording, with AudioError', async () => {
    const mp3 = encode(talk.path, file('no-ffmpeg.mp3'), ['-c:a', 'libmp3lame']);
    const noFfmpeg = { PATH: file('empty-bin'), FFMPEG_PATH: undefined };

    const wav = await withEnv(noFfmpeg, () => audio.split(talk.path, 'wav', { maxChunkSeconds: 60, workDir }));
    expect(wav.chunks.length).toBe(4);
    await wav.cleanup();

    const refusal = withEnv(noFfmpeg, () => audio.split(mp3, 'mp3', { maxChunkSeconds: 60, workDir }));
    await expect(refusal).rejects.toThrow(AudioError);
    await expect(refusal).rejects.toThrow('this recording is longer than 60 s and its format needs ffmpeg to be cut; install ffmpeg or send WAV');
    // Measuring needs no ffmpeg, so a short compressed recording still passes as it is.
    const short = await withEnv(noFfmpeg, () => audio.split(mp3, 'mp3', { maxChunkSeconds: 600, workDir }));
    expect(short.chunks).toEqual([expect.objectContaining({ path: mp3, offsetSeconds: 0 })]);
    expect(readdirSync(workDir)).toEqual([]);
  });

  it('refuses a truncated WAV with AudioError and writes nothing', async () => {
    const whole = readFileSync(talk.path);
    writeFileSync(file('truncated.wav'), whole.subarray(0, whole.length - 1000));
    await expect(audio.split(file('truncated.wav'), 'wav', { maxChunkSeconds: 60, workDir })).rejects.toThrow(AudioError);
    expect(existsSync(workDir) ? readdirSync(workDir) : []).toEqual([]);
  });
});

/** Runs `action` with environment variables set (undefined: unset), then puts them back. */
async function withEnv<T>(values: Record<string, string | undefined>, action: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  const apply = (entries: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(values);
  try {
    return await action();
  } finally {
    apply(saved);
  }
}
