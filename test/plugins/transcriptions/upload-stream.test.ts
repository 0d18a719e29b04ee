import fs from 'node:fs';
import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, filesUnder, eventually, settled, silentWav } from './transcription-test-kit';

/** A WAV whose header runs past the first 4 KiB (a 300 kB LIST chunk before fmt: past any one chunk the socket delivers): its head alone cannot tell its duration. */
function wavWithLongHeader(seconds: number): Buffer {
  const plain = silentWav(seconds);
  const list = Buffer.alloc(8 + 300_000);
  list.write('LIST', 0, 'latin1');
  list.writeUInt32LE(300_000, 4);
  const file = Buffer.concat([plain.subarray(0, 12), list, plain.subarray(12)]);
  file.writeUInt32LE(file.length - 8, 4);
  return file;
}

const BOUNDARY = 'xyzBOUNDARY';
const part = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (bytes: Buffer) =>
  Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`, 'latin1'), bytes]);

describe('transcription uploads streamed into storage', () => {
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  let agent: string;
  let files: string;

  beforeAll(async () => {
    provider = await startFakeTranscriptionServer({ fallback: { verbose: { text: 'Hello.', segments: [{ start: 0, end: 1, text: ' Hello.' }] } } });
    kit = await startTestKernel({
      plugins: TRANSCRIPTION_PLUGINS,
      config: { uploadLimit: '3mb', transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, maxFileMb: 1, maxSeconds: 60 } },
    });
    files = path.join(kit.kernel.config.core.dataDir, 'files');
    agent = (await kit.api.post('/api/v1/agents').send({ name: 'Reception' }).expect(201)).body.data.agent_uuid;
  });
  afterAll(async () => {
    await kit?.stop();
    await provider?.close();
  });

  const rows = async () => (await kit.api.get('/api/v1/transcriptions?per_page=100').expect(200)).body.data.items as Array<{ uuid: string }>;
  /** Nothing stored, once the response has ended (a refusal after the body was read removes the file when the response closes). */
  const nothingStoredBut = (kept: string[]) => eventually(async () => filesUnder(files).filter((name) => !kept.includes(name)), (left) => left.length === 0, 'files left in storage', 5000);

  it('stores the file under the tenant’s key, none left where it waited for its tenant, with the options sent after the file', async () => {
    const audio = silentWav(2);
    // The file first, the fields after it (curl -F in the README's order): the file is stored before they are read.
    const res = await kit.api.post('/api/v1/transcriptions/upload').attach('file', audio, 'call.wav').field('agent_uuid', agent).field('reference_id', 'after-the-file').expect(202);
    const { uuid } = res.body.data;
    expect(res.body.data).toMatchObject({ agent_uuid: agent, reference_id: 'after-the-file', size_bytes: audio.length, duration_seconds: 2, format: 'wav', stored_file_path: `transcriptions/${kit.tenant.uuid}/${uuid}.wav` });
    expect(filesUnder(files)).toEqual([`transcriptions/${kit.tenant.uuid}/.${uuid}.wav.meta.json`, `transcriptions/${kit.tenant.uuid}/${uuid}.wav`]);
    expect(fs.readFileSync(path.join(files, 'transcriptions', kit.tenant.uuid, `${uuid}.wav`))).toEqual(audio);
    expect((await settled(kit.api, uuid)).status).toBe('completed');
    expect(provider.requests.at(-1)!.file!.bytes).toEqual(audio);
  });

  it('measures a WAV whose header its first bytes do not hold from the stored file', async () => {
    const res = await kit.api.post('/api/v1/transcriptions/upload').attach('file', wavWithLongHeader(3), 'long-header.wav').expect(202);
    expect(res.body.data).toMatchObject({ duration_seconds: 3, format: 'wav' });
  });

  it('answers 400 for a body cut off inside the file part, after its bytes began to be stored, leaving nothing stored and no transcription', async () => {
    const before = filesUnder(files);
    const count = (await rows()).length;
    // 200 kB of a WAV: well past its head, so the storage write is under way when the body ends.
    const body = Buffer.concat([Buffer.from(part('agent_uuid', agent), 'latin1'), filePart(silentWav(20).subarray(0, 200_000))]);
    const res = await kit.api.post('/api/v1/transcriptions/upload').set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(body).expect(400);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('Malformed multipart body'), data: [] });
    expect(filesUnder(files)).toEqual(before);
    expect(await rows()).toHaveLength(count);
    await kit.api.get('/healthz').expect(200);
  });

  it('answers 400 for a body cut off after a whole file part, in a field after it: the file is not kept', async () => {
    const before = filesUnder(files);
    const count = (await rows()).length;
    const body = Buffer.concat([filePart(silentWav(2)), Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="reference_id"\r\n\r\ncut-o`, 'latin1')]);
    await kit.api.post('/api/v1/transcriptions/upload').set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(body).expect(400);
    expect(filesUnder(files)).toEqual(before);
    expect(await rows()).toHaveLength(count);
  });

  it('refuses a file over TRANSCRIPTION_MAX_FILE_MB as it streams (422), storing nothing', async () => {
    const before = filesUnder(files);
    // 70 s of 8 kHz 16-bit: 1.12 MB, over the 1 MiB limit (its duration, 70 s, is over the limit too: the size is found first).
    const big = await kit.api.post('/api/v1/transcriptions/upload').field('agent_uuid', agent).attach('file', silentWav(70), 'big.wav').expect(422);
    expect(big.body.errors).toEqual({ file: ['is larger than the limit of 1 MiB (TRANSCRIPTION_MAX_FILE_MB)'] });
    // Far over it: refused at 1 MiB, the rest of the body read and dropped.
    const huge = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(180), 'huge.wav').expect(422);
    expect(huge.body.errors).toEqual(big.body.errors);
    expect(filesUnder(files)).toEqual(before);
  });

  it('removes the stored file when the fields are refused after it: by the schema, or as agents of another tenant', async () => {
    const before = filesUnder(files);
    const count = (await rows()).length;
    const bad = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(1), 'call.wav').field('language', 'english please').expect(422);
    expect(Object.keys(bad.body.errors)).toEqual(['language']);
    const other = await kit.createTenant();
    const foreign = (await other.api.post('/api/v1/agents').send({ name: 'Elsewhere' }).expect(201)).body.data.agent_uuid;
    const notHere = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(1), 'call.wav').field('agent_uuid', foreign).expect(422);
    expect(notHere.body.errors).toEqual({ agent_uuid: ['is not an agent of this tenant'] });
    const second = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(1), 'a.wav').attach('file', silentWav(1), 'b.wav').expect(422);
    expect(second.body.errors).toEqual({ file: ['only one file may be uploaded'] });
    await nothingStoredBut(before);
    expect(await rows()).toHaveLength(count);
  });

  it('refuses what is not audio, or audio over TRANSCRIPTION_MAX_SECONDS, storing nothing', async () => {
    const before = filesUnder(files);
    const text = await kit.api.post('/api/v1/transcriptions/upload').attach('file', Buffer.from('meeting notes\n'.repeat(400)), 'notes.wav').expect(422);
    expect(text.body.errors).toEqual({ file: [expect.stringContaining('is not audio in an accepted format')] });
    const long = await kit.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(61), 'long.wav').expect(422);
    expect(long.body.errors).toEqual({ file: [expect.stringContaining('61 seconds long, over the limit of 60 seconds')] });
    const truncated = silentWav(2);
    const cut = await kit.api.post('/api/v1/transcriptions/upload').attach('file', truncated.subarray(0, truncated.length - 1000), 'cut.wav').expect(422);
    expect(cut.body.errors).toEqual({ file: [expect.stringContaining('this WAV file is truncated')] });
    const empty = await kit.api.post('/api/v1/transcriptions/upload').attach('file', Buffer.alloc(0), 'empty.wav').expect(422);
    expect(empty.body.errors).toEqual({ file: [expect.stringContaining('is empty')] });
    await nothingStoredBut(before);
  });
});
