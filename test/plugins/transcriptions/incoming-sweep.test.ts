import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { LifecycleService } from '../../../core';
import { captureLogger, createTestDatabase, startTestKernel, waitFor, type TestKernel } from '../../../core/testing';
import { fileStorageRef, type FileStorage } from '../../../plugins/storage';
import { FsFileStorage } from '../../../plugins/storage/fs-file-storage';
import { S3FileStorage } from '../../../plugins/storage/s3-file-storage';
import { scheduleIncomingSweep, sweepIncoming } from '../../../plugins/transcriptions/incoming-sweep';
import { startLocalS3, type LocalS3 } from '../storage/local-s3';
import { startFakeTranscriptionServer, type FakeTranscriptionServer } from './fake-transcription-server';
import { TRANSCRIPTION_PLUGINS, filesUnder, silentWav } from './transcription-test-kit';

/**
 * What uploads leave under transcriptions/incoming/ (a process died between storing the
 * file and moving it under its tenant, or in the middle of storing it) is removed by
 * background processes once older than TRANSCRIPTION_INCOMING_MAX_AGE_MINUTES; an upload
 * still streaming in, and the tenants' stored files, are left alone.
 */

const HOUR = 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms);
const exists = (file: string) => fs.existsSync(file);
const storageOf = (kit: TestKernel) => kit.kernel.container.resolve<FileStorage>(fileStorageRef.id);

const BOUNDARY = 'sweepBOUNDARY';
const fileHead = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="call.wav"\r\nContent-Type: audio/wav\r\n\r\n`, 'latin1');
const fileEnd = Buffer.from(`\r\n--${BOUNDARY}--\r\n`, 'latin1');

describe('the transcriptions plugin sweeping transcriptions/incoming/', () => {
  let provider: FakeTranscriptionServer;
  let database: { url: string; drop(): Promise<void> };
  let filesDir: string;
  let serving: TestKernel;

  beforeAll(async () => {
    provider = await startFakeTranscriptionServer({ fallback: { verbose: { text: 'Hello.', segments: [{ start: 0, end: 1, text: ' Hello.' }] } } });
    database = await createTestDatabase();
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-sweep-files-'));
    // A process that only serves: it takes uploads, and never sweeps.
    serving = await startTestKernel({
      plugins: TRANSCRIPTION_PLUGINS,
      role: 'serve',
      databaseUrl: database.url,
      config: { storage: { fsDir: filesDir }, transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, incomingMaxAgeMinutes: 30 } },
    });
  });
  afterAll(async () => {
    await serving?.stop();
    await database?.drop();
    await provider?.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });

  it('a background process removes, as it starts, parked files and dead writes older than the age; fresh ones and the tenants’ files stay', async () => {
    // A tenant's file, stored as the API stores it, and then hours old.
    const upload = await serving.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(2), 'call.wav').expect(202);
    const stored: string = upload.body.data.stored_file_path;
    expect(stored).toBe(`transcriptions/${serving.tenant.uuid}/${upload.body.data.uuid}.wav`);
    fs.utimesSync(path.join(filesDir, stored), ago(5 * HOUR), ago(5 * HOUR));

    // What dead processes left, as the fs driver writes it: whole files (and their types) and a temporary file.
    const parked = new FsFileStorage(filesDir);
    const incoming = path.join(filesDir, 'transcriptions/incoming');
    await parked.put('transcriptions/incoming/0190aaaa-0000-7000-8000-000000000001.wav', silentWav(1), { contentType: 'audio/wav' });
    await parked.put('transcriptions/incoming/0190aaaa-0000-7000-8000-000000000002.ogg', Buffer.from('OggS'), { contentType: 'audio/ogg' });
    await parked.put('transcriptions/incoming/0190aaaa-0000-7000-8000-000000000003.wav', silentWav(1), { contentType: 'audio/wav' });
    const deadWrite = path.join(incoming, '.0190aaaa-0000-7000-8000-000000000004.wav.0190bbbb-1111-7222-8333-444455556666.tmp');
    const liveWrite = path.join(incoming, '.0190aaaa-0000-7000-8000-000000000005.wav.0190bbbb-1111-7222-8333-444455557777.tmp');
    fs.writeFileSync(deadWrite, 'RIFF');
    fs.writeFileSync(liveWrite, 'RIFF');
    // A URL's audio that was streaming to its tenant's key when its process died, and one still streaming.
    const tenantDir = path.dirname(path.join(filesDir, stored));
    const deadTenantWrite = path.join(tenantDir, '.0190aaaa-0000-7000-8000-000000000006.mp3.0190bbbb-1111-7222-8333-444455558888.tmp');
    const liveTenantWrite = path.join(tenantDir, '.0190aaaa-0000-7000-8000-000000000007.mp3.0190bbbb-1111-7222-8333-444455559999.tmp');
    fs.writeFileSync(deadTenantWrite, 'ID3');
    fs.writeFileSync(liveTenantWrite, 'ID3');
    fs.utimesSync(deadTenantWrite, ago(2 * HOUR), ago(2 * HOUR));
    for (const name of ['0190aaaa-0000-7000-8000-000000000001.wav', '.0190aaaa-0000-7000-8000-000000000001.wav.meta.json', '0190aaaa-0000-7000-8000-000000000002.ogg', path.basename(deadWrite)]) {
      fs.utimesSync(path.join(incoming, name), ago(2 * HOUR), ago(2 * HOUR));
    }
    // 20 minutes: within the 30-minute age.
    fs.utimesSync(path.join(incoming, '0190aaaa-0000-7000-8000-000000000003.wav'), ago(HOUR / 3), ago(HOUR / 3));
    const before = filesUnder(filesDir);

    const worker = await startTestKernel({
      plugins: TRANSCRIPTION_PLUGINS,
      role: 'worker',
      tenant: 'sweeper',
      databaseUrl: database.url,
      config: { storage: { fsDir: filesDir }, transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, incomingMaxAgeMinutes: 30 } },
    });
    try {
      const gone = [
        'transcriptions/incoming/0190aaaa-0000-7000-8000-000000000001.wav',
        'transcriptions/incoming/.0190aaaa-0000-7000-8000-000000000001.wav.meta.json',
        'transcriptions/incoming/0190aaaa-0000-7000-8000-000000000002.ogg',
        'transcriptions/incoming/.0190aaaa-0000-7000-8000-000000000002.ogg.meta.json',
        `transcriptions/incoming/${path.basename(deadWrite)}`,
        path.relative(filesDir, deadTenantWrite),
      ];
      const left = await waitFor(() => filesUnder(filesDir), (files) => gone.every((file) => !files.includes(file)));
      expect(left).toEqual(before.filter((file) => !gone.includes(file)));
      expect(left).toEqual(
        expect.arrayContaining([stored, 'transcriptions/incoming/0190aaaa-0000-7000-8000-000000000003.wav', `transcriptions/incoming/${path.basename(liveWrite)}`, path.relative(filesDir, liveTenantWrite)]),
      );
      await waitFor(
        () => worker.logs,
        (logs) => logs.some((line) => line.message === 'removed uploads left under transcriptions/incoming/'),
      );
      expect(worker.logs.find((line) => line.message === 'removed uploads left under transcriptions/incoming/')).toMatchObject({ plugin: 'transcriptions', removed: 2, unfinished: 2, maxAgeMinutes: 30 });
    } finally {
      await worker.stop();
    }
    // The tenant's transcription still has its audio.
    const audio = await serving.api
      .get(`/api/v1/transcriptions/${upload.body.data.uuid}/audio`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect((audio.body as Buffer).equals(silentWav(2))).toBe(true);
  });

  it('never removes an upload still streaming in, however long ago it began, and the upload then completes under its tenant', async () => {
    const storage = storageOf(serving);
    const incoming = path.join(filesDir, 'transcriptions/incoming');
    const audio = silentWav(20);
    const request = http.request(`${serving.url}/api/v1/transcriptions/upload`, {
      method: 'POST',
      headers: {
        host: `acme.${serving.kernel.config.core.baseDomain}`,
        authorization: `Bearer ${serving.token}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': fileHead.length + audio.length + fileEnd.length,
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      request.on('error', reject);
    });
    /** The upload's temporary file, once it holds at least `bytes`. */
    const writing = (bytes: number) =>
      waitFor(
        () => (fs.existsSync(incoming) ? fs.readdirSync(incoming).filter((name) => name.endsWith('.tmp')) : []).map((name) => path.join(incoming, name)).find((file) => (fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0) >= bytes),
        (file) => file !== undefined,
      ) as Promise<string>;

    request.write(Buffer.concat([fileHead, audio.subarray(0, 100_000)]));
    const temporary = await writing(90_000);
    // As if the upload had begun hours ago.
    fs.utimesSync(temporary, ago(3 * HOUR), ago(3 * HOUR));
    request.write(audio.subarray(100_000, 200_000));
    await writing(190_000);
    expect(fs.statSync(temporary).mtimeMs).toBeGreaterThan(Date.now() - 60_000);

    await expect(sweepIncoming(storage, 30)).resolves.toEqual({ removed: 0, unfinished: 0 });
    expect(exists(temporary)).toBe(true);

    request.end(Buffer.concat([audio.subarray(200_000), fileEnd]));
    const answer = await response;
    expect(answer.status).toBe(202);
    const { uuid, stored_file_path } = JSON.parse(answer.body).data;
    expect(stored_file_path).toBe(`transcriptions/${serving.tenant.uuid}/${uuid}.wav`);
    expect(fs.readFileSync(path.join(filesDir, stored_file_path))).toEqual(audio);
  });

  it('leaves every stored file outside transcriptions/incoming/, however old, and two processes sweeping at once is harmless', async () => {
    const storage = storageOf(serving);
    const upload = await serving.api.post('/api/v1/transcriptions/upload').attach('file', silentWav(1), 'call.wav').expect(202);
    for (let i = 0; i < 20; i++) await storage.put(`transcriptions/incoming/0190cccc-0000-7000-8000-${String(i).padStart(12, '0')}.wav`, silentWav(1), { contentType: 'audio/wav' });
    // Stored files: a day ahead, an earlier test's write still in progress counts as dead (its temporary file goes).
    const outside = filesUnder(filesDir).filter((file) => !file.startsWith('transcriptions/incoming/') && !file.endsWith('.tmp'));
    expect(outside).toContain(upload.body.data.stored_file_path);

    // A day ahead: everything stored is old by then.
    const now = new Date(Date.now() + 24 * HOUR);
    const [first, second] = await Promise.all([sweepIncoming(storage, 30, { now }), sweepIncoming(storage, 30, { now })]);
    expect(first.removed + second.removed).toBeGreaterThanOrEqual(20);
    expect(filesUnder(filesDir)).toEqual(outside);
  });
});

describe('the transcriptions plugin sweeping transcriptions/incoming/ on S3', () => {
  let s3: LocalS3;
  let provider: FakeTranscriptionServer;
  beforeAll(async () => {
    s3 = await startLocalS3(['audio']);
    provider = await startFakeTranscriptionServer({ fallback: { verbose: { text: 'Hello.', segments: [{ start: 0, end: 1, text: ' Hello.' }] } } });
  });
  afterAll(async () => {
    await provider?.close();
    await s3?.close();
  });

  it('removes the old parked objects as a background process starts, and leaves fresh ones and the tenants’ objects', async () => {
    const settings = { endpoint: s3.url, region: 'us-east-1', bucket: 'audio', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, keyPrefix: 'sb' };
    const direct = new S3FileStorage(settings);
    try {
      for (const key of ['transcriptions/incoming/old.wav', 'transcriptions/incoming/fresh.wav', 'transcriptions/0190dddd-0000-7000-8000-000000000001/kept.wav']) {
        await direct.put(key, silentWav(1), { contentType: 'audio/wav' });
      }
      s3.backdate('audio', 'sb/transcriptions/incoming/old.wav', ago(2 * HOUR));
      s3.backdate('audio', 'sb/transcriptions/0190dddd-0000-7000-8000-000000000001/kept.wav', ago(5 * HOUR));

      const worker = await startTestKernel({
        plugins: TRANSCRIPTION_PLUGINS,
        role: 'worker',
        config: {
          storage: { driver: 's3', s3Endpoint: s3.url, s3Bucket: 'audio', s3AccessKeyId: 'S3RVER', s3SecretAccessKey: 'S3RVER', s3KeyPrefix: 'sb' },
          transcriptions: { baseUrl: provider.url, apiKey: provider.apiKey, incomingMaxAgeMinutes: 30 },
        },
      });
      try {
        const keys = async () => {
          const found: string[] = [];
          for await (const file of direct.list('transcriptions/')) found.push(file.key);
          return found.sort();
        };
        await waitFor(keys, (found) => !found.includes('transcriptions/incoming/old.wav'));
        expect(await keys()).toEqual(['transcriptions/0190dddd-0000-7000-8000-000000000001/kept.wav', 'transcriptions/incoming/fresh.wav']);
        // s3rver has no ListMultipartUploads: the files are swept all the same, and the gap is said.
        const warning = await waitFor(
          () => worker.logs.find((line) => String(line.message).startsWith('the store could not list unfinished uploads')),
          (line) => line !== undefined,
        );
        expect(warning).toMatchObject({ plugin: 'transcriptions', level: 'warn', error: expect.stringContaining('NotImplemented') });
      } finally {
        await worker.stop();
      }
    } finally {
      direct.close();
    }
  });
});

describe('scheduleIncomingSweep', () => {
  /** A lifecycle of a process of `role`, whose start and stop the test runs. */
  function lifecycleOf(role: LifecycleService['role']) {
    const starts: Array<() => unknown> = [];
    const stops: Array<() => unknown> = [];
    const lifecycle = { role, onStart: (hook: () => unknown) => void starts.push(hook), onStop: (hook: () => unknown) => void stops.push(hook) } as unknown as LifecycleService;
    return { lifecycle, start: () => Promise.all(starts.map((hook) => hook())), stop: () => Promise.all(stops.map((hook) => hook())), hooks: () => starts.length + stops.length };
  }
  let dir: string;
  let storage: FsFileStorage;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-sweep-'));
    storage = new FsFileStorage(dir);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a process that only serves, or an age of 0, schedules nothing', () => {
    const { logger } = captureLogger();
    const serving = lifecycleOf('serve');
    scheduleIncomingSweep({ lifecycle: serving.lifecycle, storage, logger, maxAgeMinutes: 60 });
    expect(serving.hooks()).toBe(0);
    const never = lifecycleOf('worker');
    scheduleIncomingSweep({ lifecycle: never.lifecycle, storage, logger, maxAgeMinutes: 0 });
    expect(never.hooks()).toBe(0);
  });

  it('a worker sweeps as it starts, and a failing store is logged, not thrown', async () => {
    await storage.put('transcriptions/incoming/a.wav', Buffer.from('a'), { contentType: 'audio/wav' });
    fs.utimesSync(path.join(dir, 'transcriptions/incoming/a.wav'), ago(2 * HOUR), ago(2 * HOUR));
    const { logger, lines } = captureLogger();
    const { lifecycle, start, stop } = lifecycleOf('start');
    scheduleIncomingSweep({ lifecycle, storage, logger, maxAgeMinutes: 60 });
    await start();
    await waitFor(() => exists(path.join(dir, 'transcriptions/incoming/a.wav')), (there) => !there);
    await stop();

    const broken = { ...storage, list: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('store down')) }) }) } as unknown as FileStorage;
    const failing = lifecycleOf('worker');
    scheduleIncomingSweep({ lifecycle: failing.lifecycle, storage: broken, logger, maxAgeMinutes: 60 });
    await failing.start();
    await waitFor(() => lines.map((line) => line.message), (messages) => messages.includes('sweeping transcriptions/incoming/ failed; the next run tries again'));
    await failing.stop();
  });
});
