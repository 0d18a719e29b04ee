import { readFile } from 'node:fs/promises';
import { ValidationError, coreServices, definePlugin } from '../../../../core';
import { startTestKernel, transactionsOpenLongerThan, type TestKernel } from '../../../../core/testing';
import { ImportSourceError, contributeImportMediaReader, type ImportItem, type ImportMediaReader } from '../../../../plugins/tables';
import { AGENTS, TABLES, columnsOf, finished, rowsOf, uploadRequest } from './import-test-kit';

/**
 * A media reader contributed by a plugin of the test, as the transcriptions plugin
 * contributes its audio reader: it takes "recordings" that are a WAV header followed by
 * text lines `start|end|speaker|text`, so the tables side of audio imports is tested
 * without a speech-to-text provider.
 */
const state = {
  available: true,
  accepted: [] as Array<{ size: number; head: string }>,
  read: [] as Array<{ bytes: Buffer; options: Record<string, unknown>; hasEgress: boolean }>,
  gate: null as Promise<void> | null,
  reading: false,
};

const WAV_HEADER = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(32)]);
const recording = (lines: string[]) => Buffer.concat([WAV_HEADER, Buffer.from(lines.join('\n'))]);
const payloadOf = (bytes: Buffer) => bytes.subarray(WAV_HEADER.length).toString('utf8');

const reader: ImportMediaReader = {
  format: 'audio',
  accepts: 'test recordings',
  deps: { egress: coreServices.egress },
  available: () => state.available,
  async accept(upload) {
    if (upload.head.subarray(0, 4).toString('latin1') !== 'RIFF') return null;
    state.accepted.push({ size: upload.size, head: upload.head.subarray(0, 4).toString('latin1') });
    const text = payloadOf(await readFile(upload.path));
    if (text.startsWith('TOO LONG')) throw ValidationError.field('file', 'is too long for the test reader');
    return { lines: text.split('\n').length };
  },
  async *read(file, deps): AsyncGenerator<ImportItem> {
    const bytes = await readFile(file.path);
    state.read.push({ bytes, options: file.options, hasEgress: typeof (deps.egress as { request?: unknown })?.request === 'function' });
    state.reading = true;
    if (state.gate) await state.gate;
    const text = payloadOf(bytes);
    if (text.startsWith('FAIL:')) throw new ImportSourceError(text.slice('FAIL:'.length));
    yield { kind: 'columns', names: ['start', 'end', 'speaker', 'text'], types: ['number', 'number', 'text', 'text'] };
    for (const [index, line] of text.split('\n').entries()) yield { kind: 'row', row: index + 1, cells: line.split('|') };
  },
};

const audioDouble = definePlugin({ id: 'audio-double', dependsOn: ['tables'], ...contributeImportMediaReader(reader) });

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, audioDouble] });
});
afterAll(() => kit?.stop());
beforeEach(() => {
  state.available = true;
  state.accepted = [];
  state.read = [];
  state.gate = null;
  state.reading = false;
});

/** `message`: the text, or a matcher of it. */
const expectFileError = async (request: ReturnType<typeof uploadRequest>, message: unknown) => {
  const res = await request.expect(422);
  expect(res.body.errors).toEqual({ file: [message] });
};

describe('audio imports through a contributed media reader', () => {
  it('stores the upload, hands it back to the reader in the job with what accept kept, and writes its rows with its column types', async () => {
    const upload = recording(['0|1.5|SPEAKER_00|Hello there', 'soon|2|SPEAKER_01|A bad start time', '2.25|3|SPEAKER_01|Goodbye']);
    const created = await uploadRequest(kit.api, upload, 'call.wav').expect(202);
    expect(created.body.data).toMatchObject({ format: 'audio', status: 'queued' });
    const done = await finished(kit.api, created.body.data.uuid);

    expect(done).toMatchObject({ status: 'completed', format: 'audio', rows_imported: 2, error_count: 1, progress: { done: upload.length, total: upload.length, unit: 'bytes' } });
    expect(done.errors).toEqual([{ row: 2, message: expect.stringContaining('start') }]);
    expect(await columnsOf(kit.api, done.table_uuid)).toEqual([
      ['start', 'number'],
      ['end', 'number'],
      ['speaker', 'text'],
      ['text', 'text'],
    ]);
    expect(await rowsOf(kit.api, done.table_uuid)).toEqual([
      { start: 0, end: 1.5, speaker: 'SPEAKER_00', text: 'Hello there' },
      { start: 2.25, end: 3, speaker: 'SPEAKER_01', text: 'Goodbye' },
    ]);
    expect(state.accepted).toEqual([{ size: upload.length, head: 'RIFF' }]);
    expect(state.read).toHaveLength(1);
    expect(state.read[0].bytes.equals(upload)).toBe(true);
    expect(state.read[0]).toMatchObject({ options: { lines: 3 }, hasEgress: true });
  });

  it('fails the import with the message of an ImportSourceError from the reader', async () => {
    const done = await finished(kit.api, (await uploadRequest(kit.api, recording(['FAIL:The provider refused the recording']), 'bad.wav').expect(202)).body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', rows_imported: 0, message: 'The provider refused the recording' });
  });

  it('reads with no database transaction open', async () => {
    let release!: () => void;
    state.gate = new Promise<void>((resolve) => (release = resolve));
    const created = await uploadRequest(kit.api, recording(['0|1|A|Slow']), 'slow.wav').expect(202);
    try {
      const deadline = Date.now() + 20_000;
      while (!state.reading && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(state.reading).toBe(true);
      expect(await transactionsOpenLongerThan(kit, 300, { samples: 4 })).toEqual([]);
    } finally {
      release();
    }
    expect(await finished(kit.api, created.body.data.uuid)).toMatchObject({ status: 'completed', rows_imported: 1 });
  });

  it('answers the reader’s refusal as a 422 at `file`, and creates nothing', async () => {
    const before = (await kit.api.get('/api/v1/data/imports').expect(200)).body.data.pagination.total;
    await expectFileError(uploadRequest(kit.api, recording(['TOO LONG']), 'long.wav'), 'is too long for the test reader');
    expect((await kit.api.get('/api/v1/data/imports').expect(200)).body.data.pagination.total).toBe(before);
    expect(state.read).toEqual([]);
  });

  it('refuses audio the reader does not take, naming what it takes, and binary content it does not take as before', async () => {
    const flac = Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(64)]);
    await expectFileError(uploadRequest(kit.api, flac, 'song.flac'), 'is audio in a format that is not taken: send test recordings');
    await expectFileError(uploadRequest(kit.api, Buffer.from([0x00, 0x01, 0x02, 0x8f, 0x00, 0x41]), 'blob.bin'), expect.stringMatching(/^is binary data, not a supported file/));
  });

  it('keeps the 422 of audio without a provider while the reader is not available', async () => {
    state.available = false;
    await expectFileError(uploadRequest(kit.api, recording(['0|1|A|Hello']), 'call.wav'), 'audio import needs a transcription provider');
    expect(state.accepted).toEqual([]);
  });
});
