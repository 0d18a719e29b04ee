import path from 'node:path';
import { startTestKernel, transactionsOpenLongerThan, type TestKernel } from '../../../core/testing';
import { columnsOf, finished, rowsOf, uploadRequest } from '../tables/imports/import-test-kit';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { eventually, silentWav, spoken } from './transcription-test-kit';

const PLUGINS = ['agents', 'conversations', 'storage', 'agent-webhooks', 'tables', 'transcriptions'].map((id) => path.resolve(__dirname, '../../../plugins', id));

const expectFileError = async (request: ReturnType<typeof uploadRequest>, message: string) => {
  const res = await request.expect(422);
  expect(res.body.errors).toEqual({ file: [message] });
};

describe('audio table imports through the transcription provider', () => {
  let kit: TestKernel;
  let provider: FakeTranscriptionServer;
  let greeting: Buffer;

  beforeAll(async () => {
    provider = await startFakeTranscriptionServer();
    greeting = spoken('Thank you for calling the clinic. I would like an appointment.');
    kit = await startTestKernel({
      plugins: PLUGINS,
      // Short bus backoff: the import job retries a provider's 5xx with the bus's retries.
      config: { busBackoffInitialMs: 20, transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, maxSeconds: 30, maxFileMb: 1 } },
    });
  });
  afterAll(async () => {
    await kit?.stop();
    await provider?.close();
  });

  it('makes a table with one row per segment (start, end, speaker, text) from an espeak-ng recording', async () => {
    provider.script({
      verbose: {
        text: 'Thank you for calling the clinic. I would like an appointment.',
        duration: 3.1,
        segments: [
          { start: 0, end: 1.6, text: ' Thank you for calling the clinic.', speaker: 'SPEAKER_00' },
          { start: 1.7, end: 3.1, text: ' I would like an appointment.', speaker: 'SPEAKER_01' },
          { start: 3.1, end: 3.5, text: ' Bye.' },
        ],
      },
    });
    const before = provider.requests.length;
    const created = await uploadRequest(kit.api, greeting, 'call.wav', { name: 'Call 1042' }).expect(202);
    expect(created.body.data).toMatchObject({ source: 'file', format: 'audio', status: 'queued', source_name: 'call.wav', progress: { done: 0, total: greeting.length, unit: 'bytes' } });

    const done = await finished(kit.api, created.body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', format: 'audio', rows_imported: 3, error_count: 0, message: null, progress: { done: greeting.length, total: greeting.length, unit: 'bytes' } });
    const table = (await kit.api.get(`/api/v1/data/${done.table_uuid}`).expect(200)).body.data;
    expect(table.name).toBe('Call 1042');
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['start', 'number'],
      ['end', 'number'],
      ['speaker', 'text'],
      ['text', 'text'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { start: 0, end: 1.6, speaker: 'SPEAKER_00', text: 'Thank you for calling the clinic.' },
      { start: 1.7, end: 3.1, speaker: 'SPEAKER_01', text: 'I would like an appointment.' },
      { start: 3.1, end: 3.5, speaker: null, text: 'Bye.' },
    ]);

    // The provider got the recording itself, as the transcriptions plugin sends it.
    expect(provider.requests.length).toBe(before + 1);
    const request = provider.requests[before];
    expect(request.file?.bytes.equals(greeting)).toBe(true);
    expect(request.file?.mimeType).toBe('audio/wav');
    expect(request.fields).toMatchObject({ model: ['whisper-1'], response_format: ['verbose_json'] });
  });

  it('judges audio by its content, not its name: a WAV named .bin is imported, a WAV named .csv is refused', async () => {
    provider.script({ verbose: { text: 'Hello.', segments: [{ start: 0, end: 0.8, text: 'Hello.' }] } });
    const unnamed = await finished(kit.api, (await uploadRequest(kit.api, greeting, 'recording.bin').expect(202)).body.data.uuid);
    expect(unnamed).toMatchObject({ status: 'completed', format: 'audio', rows_imported: 1 });
    expect((await kit.api.get(`/api/v1/data/${unnamed.table_uuid}`).expect(200)).body.data.name).toBe('recording');

    await expectFileError(uploadRequest(kit.api, greeting, 'call.csv'), 'is declared as csv (by its name) but its content is audio');
    await expectFileError(uploadRequest(kit.api, 'a,b\n1,2\n', 'data.csv', { format: 'audio' }), 'is declared as audio (by the format field) but its content is CSV text');
  });

  it('holds no database transaction while the provider works', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived = false;
    provider.script(async () => {
      arrived = true;
      await gate;
      return { verbose: { text: 'Later.', segments: [{ start: 0, end: 1, text: 'Later.' }] } };
    });
    const created = await uploadRequest(kit.api, greeting, 'slow.wav').expect(202);
    try {
      await eventually(async () => arrived, Boolean, 'the provider got the recording');
      expect((await kit.api.get(`/api/v1/data/imports/${created.body.data.uuid}`).expect(200)).body.data.status).toBe('running');
      expect(await transactionsOpenLongerThan(kit, 300, { samples: 4 })).toEqual([]);
    } finally {
      release();
    }
    expect(await finished(kit.api, created.body.data.uuid)).toMatchObject({ status: 'completed', rows_imported: 1 });
  });

  it('fails the import with the provider’s reason when it refuses the audio, with no retry and no rows', async () => {
    provider.script({ status: 400, message: 'Invalid file format.' });
    const before = provider.requests.length;
    const done = await finished(kit.api, (await uploadRequest(kit.api, greeting, 'refused.wav').expect(202)).body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', rows_imported: 0, message: 'The transcription server answered 400: Invalid file format.' });
    expect(provider.requests.length).toBe(before + 1);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([]);
  });

  it('retries a provider answering 5xx with the import job, and completes when it recovers', async () => {
    provider.script({ status: 503, message: 'Overloaded' }, { verbose: { text: 'Back again.', segments: [{ start: 0, end: 1.2, text: 'Back again.' }] } });
    const before = provider.requests.length;
    const done = await finished(kit.api, (await uploadRequest(kit.api, greeting, 'retry.wav').expect(202)).body.data.uuid);
    expect(done).toMatchObject({ status: 'completed', rows_imported: 1 });
    expect(provider.requests.length).toBe(before + 2);
  });

  it('fails the import with the last reason when the provider keeps failing (after the job’s 3 attempts)', async () => {
    provider.script({ status: 503, message: 'Overloaded' }, { status: 502, message: 'Bad gateway' }, { status: 500, message: 'Still down' });
    const before = provider.requests.length;
    const done = await finished(kit.api, (await uploadRequest(kit.api, greeting, 'down.wav').expect(202)).body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', rows_imported: 0, message: 'The import failed: The transcription server answered 500: Still down' });
    expect(provider.requests.length).toBe(before + 3);
  });

  it('fails a recording in which the provider heard nothing', async () => {
    provider.script({ verbose: { text: '' } });
    const done = await finished(kit.api, (await uploadRequest(kit.api, silentWav(2), 'silence.wav').expect(202)).body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', message: 'The transcription server heard no speech in the recording' });
  });

  it('refuses with 422 at `file`, before storing or sending anything, what the transcriptions plugin refuses', async () => {
    const before = provider.requests.length;
    await expectFileError(uploadRequest(kit.api, silentWav(31), 'long.wav'), 'is 31 seconds long, over the limit of 30 seconds (TRANSCRIPTION_MAX_SECONDS)');
    await expectFileError(uploadRequest(kit.api, silentWav(70), 'big.wav'), 'is larger than the limit of 1 MiB for audio (TRANSCRIPTION_MAX_FILE_MB)');
    const flac = Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(128)]);
    await expectFileError(uploadRequest(kit.api, flac, 'song.flac'), 'is audio in a format that is not taken: send wav, mp3, m4a, ogg/opus or webm');
    const truncated = silentWav(1).subarray(0, 30);
    const cut = await uploadRequest(kit.api, truncated, 'cut.wav').expect(422);
    expect(cut.body.errors).toEqual({ file: [expect.stringMatching(/^cannot be read as wav audio: /)] });
    expect(provider.requests.length).toBe(before);
    const imports = (await kit.api.get('/api/v1/data/imports?per_page=100').expect(200)).body.data.items as Array<{ source_name: string }>;
    expect(imports.filter((item) => ['long.wav', 'big.wav', 'song.flac', 'cut.wav'].includes(item.source_name))).toEqual([]);
  });
});

describe('audio table imports without a provider configured', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: PLUGINS, config: { transcriptions: { baseUrl: '' } } });
  });
  afterAll(() => kit?.stop());

  it('keeps the 422 of audio no reader takes', async () => {
    await expectFileError(uploadRequest(kit.api, spoken('Hello there.'), 'hello.wav'), 'audio import needs a transcription provider');
  });
});
