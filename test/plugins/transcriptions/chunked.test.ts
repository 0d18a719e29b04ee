import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startFakeTranscriptionServer, type FakeTranscriptionServer, type TranscriptionRequest } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, settled, spoken } from './transcription-test-kit';

/** The PCM of a 16-bit WAV and its byte rate (the `fmt ` and `data` chunks found by walking the RIFF chunks). */
function pcmOf(wav: Buffer): { format: Buffer; data: Buffer; byteRate: number } {
  let offset = 12;
  let format: Buffer | null = null;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    // espeak-ng writes a streaming header: its data size may be 0x7fffffff, so the data runs to the end.
    const size = Math.min(wav.readUInt32LE(offset + 4), wav.length - offset - 8);
    if (id === 'fmt ') format = wav.subarray(offset + 8, offset + 8 + size);
    if (id === 'data') return { format: format!, data: wav.subarray(offset + 8, offset + 8 + size), byteRate: format!.readUInt32LE(8) };
    offset += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}

/** Two spoken phrases with `gap` seconds of silence between them, as one 16-bit WAV. */
function conversation(first: Buffer, second: Buffer, gap: number): Buffer {
  const a = pcmOf(first);
  const b = pcmOf(second);
  const blockAlign = a.format.readUInt16LE(12);
  const silence = Buffer.alloc(Math.round((gap * a.byteRate) / blockAlign) * blockAlign);
  const data = Buffer.concat([a.data, silence, b.data]);
  const header = Buffer.alloc(12 + 8 + a.format.length + 8);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(header.length - 8 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(a.format.length, 16);
  a.format.copy(header, 20);
  header.write('data', 20 + a.format.length, 'ascii');
  header.writeUInt32LE(data.length, 24 + a.format.length);
  return Buffer.concat([header, data]);
}

const secondsOf = (request: TranscriptionRequest) => {
  const { data, byteRate } = pcmOf(request.file!.bytes);
  return data.length / byteRate;
};

describe('long recordings', () => {
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  beforeAll(async () => {
    provider = await startFakeTranscriptionServer();
    kit = await startTestKernel({ plugins: TRANSCRIPTION_PLUGINS, config: { transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, chunkSeconds: 4 } } });
  });
  afterAll(async () => {
    await kit?.stop();
    await provider?.close();
  });

  it('are cut into pieces of at most TRANSCRIPTION_CHUNK_SECONDS, one request each, their segments shifted by where each piece starts and stitched in order', async () => {
    const audio = conversation(spoken('Good morning, this is the dental clinic, how can I help you today?'), spoken('I would like to move my appointment to Friday, please.'), 2);
    const total = pcmOf(audio).data.length / pcmOf(audio).byteRate;
    expect(total).toBeGreaterThan(8);
    // Each piece answered with one segment spanning it, named by its order.
    let piece = 0;
    const answer = (request: TranscriptionRequest) => {
      piece += 1;
      const seconds = secondsOf(request);
      return { verbose: { text: `piece ${piece}`, language: 'english', duration: seconds, segments: [{ start: 0.5, end: seconds, text: `piece ${piece}` }] } };
    };
    provider.script(answer, answer, answer, answer, answer, answer);

    const created = await kit.api.post('/api/v1/transcriptions/upload').attach('file', audio, 'long.wav').expect(202);
    const done = await settled(kit.api, created.body.data.uuid);
    expect(done.status).toBe('completed');

    const sent = provider.requests;
    expect(sent.length).toBeGreaterThanOrEqual(3);
    const durations = sent.map(secondsOf);
    for (const seconds of durations) expect(seconds).toBeLessThanOrEqual(4 + 1e-6);
    expect(durations.reduce((sum, seconds) => sum + seconds, 0)).toBeCloseTo(total, 2);

    const result = done.transcription_result!;
    expect(result.text).toBe(sent.map((_, index) => `piece ${index + 1}`).join(' '));
    let offset = 0;
    result.segments.forEach((segment, index) => {
      expect(segment.text).toBe(`piece ${index + 1}`);
      expect(segment.start).toBeCloseTo(offset + 0.5, 2);
      expect(segment.end).toBeCloseTo(offset + durations[index], 2);
      offset += durations[index];
    });
    expect(result.duration).toBeCloseTo(total, 2);
  });
});
