/**
 * The design's floor for bench/transcriptions.ts, run as a child process of its own
 * (`node -r ./bin/register-ts.js bench/transcriptions/floor.ts`, forked with IPC): what the
 * platform does with a file's bytes, and nothing else. A bare express app (no tenant, no
 * auth, no database, no bus) with the kernel's own multipart parser
 * (core/http/multipart-upload.ts: the body spooled to a temporary file) and the
 * transcriptions plugin's own intake (plugins/transcriptions/intake.ts: the head sniffed,
 * the duration read, the file copied into the storage plugin's fs driver):
 *
 *   POST /upload?step=drain    the body read and dropped: HTTP alone
 *   POST /upload?step=spool    the body parsed and the file spooled to a temporary file, as
 *                              the kernel takes any upload
 *   POST /upload?step=intake   and the plugin's intake: the spooled design's whole file work
 *   POST /upload?step=stream   the upload route's design: the file part streamed by the
 *                              kernel's parser straight into the plugin's `receiveAudio`
 *                              (sniffed, stored, measured), then moved under its tenant's key
 *   POST /upload?step=job      and then the job's file work before the answer: the stored
 *                              file copied back to a temporary file and read whole (what
 *                              job/process-job.ts and provider/transcribe-recording.ts do
 *                              before the provider is called)
 *
 * Each answers 202 once its step is done.
 */

/** How far the floor's server goes with a file. */
export type FloorStep = 'drain' | 'spool' | 'intake' | 'stream' | 'job';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import express from 'express';
import { discardUpload, parseMultipart, type ParsedUpload } from '../../core/http/multipart-upload';
import { FsFileStorage } from '../../plugins/storage/fs-file-storage';
import { audio } from '../../plugins/transcriptions/audio';
import type { TranscriptionsSettings } from '../../plugins/transcriptions/config';
import { receiveAudio, takeAudio, type ReceivedAudio } from '../../plugins/transcriptions/intake';
import { runChild } from '../lib/children';

export type FloorMessage = { type: 'ready'; url: string } | { type: 'error'; error: string };

const UPLOAD_LIMIT = 50 * 1024 * 1024;
const TENANT = { uuid: '00000000-0000-7000-8000-000000000000', slug: 'bench', name: 'Bench' };

/** The stored file read back as the job reads it: copied to a temporary file, then read whole for the provider request. */
async function jobFileWork(storage: FsFileStorage, key: string): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'transcription-'));
  try {
    const file = path.join(dir, 'audio.wav');
    await pipeline((await storage.read(key)).body, createWriteStream(file));
    return (await readFile(file)).length;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function runFloor(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'switchboard-bench-transcriptions-floor-'));
  const storage = new FsFileStorage(root);
  const settings = { maxFileMb: 50, maxSeconds: 14_400 } as TranscriptionsSettings;
  const app = express();
  app.post('/upload', async (req, res) => {
    const step = req.query.step as FloorStep;
    let upload: ParsedUpload | undefined;
    try {
      if (step === 'drain') {
        for await (const chunk of req) void chunk;
        res.status(202).json({ data: {} });
        return;
      }
      if (step === 'stream') {
        upload = await parseMultipart(req, { field: 'file', receive: (incoming) => receiveAudio({ audio, storage, settings }, incoming) }, UPLOAD_LIMIT);
        const taken = await (upload.file!.received as ReceivedAudio).keep(TENANT);
        res.status(202).json({ data: { uuid: taken.uuid, size_bytes: taken.sizeBytes, duration_seconds: taken.durationSeconds } });
        await storage.remove(taken.storageKey);
        return;
      }
      upload = await parseMultipart(req, { field: 'file' }, UPLOAD_LIMIT);
      if (step === 'spool') {
        res.status(202).json({ data: { size_bytes: upload.file!.size } });
        return;
      }
      const taken = await takeAudio({ audio, storage, settings }, TENANT, upload.file!, 'file');
      if (step === 'job') await jobFileWork(storage, taken.storageKey);
      res.status(202).json({ data: { uuid: taken.uuid, size_bytes: taken.sizeBytes, duration_seconds: taken.durationSeconds } });
      // Nothing is kept (a run writes gigabytes), once answered: the platform keeps its files.
      await storage.remove(taken.storageKey);
    } catch (error) {
      res.status(500).json({ error: String((error as Error).message ?? error) });
    } finally {
      await discardUpload(upload);
    }
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  process.on('message', (message) => {
    if (message !== 'stop') return;
    server.closeAllConnections();
    server.close(() => {
      rmSync(root, { recursive: true, force: true });
      process.exit(0);
    });
  });
  process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } satisfies FloorMessage);
}

if (require.main === module) runChild(runFloor);
