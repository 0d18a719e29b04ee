import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ValidationError, newUuid, type TenantRef, type UploadSpec } from '../../core';
import type { FileStorage } from '../storage';
import { AudioError, type AudioModule, type AudioFormat } from './audio/audio-types';
import type { TranscriptionsSettings } from './config';

/** What a user may bring, for the messages that refuse the rest. */
export const ACCEPTED_FORMATS = 'wav, mp3, m4a, ogg/opus or webm';
const HEAD_BYTES = 4096;

export interface TakenAudio {
  uuid: string;
  storageKey: string;
  storedFilePath: string;
  format: AudioFormat;
  mimeType: string;
  sizeBytes: number;
  durationSeconds: number;
}

export const maxBytesOf = (settings: Pick<TranscriptionsSettings, 'maxFileMb'>) => settings.maxFileMb * 1024 * 1024;

/** `transcriptions/<tenant>/<uuid>.<ext>`: built from ids only, never from the user's file name. */
export const storageKeyOf = (tenantUuid: string, uuid: string, format: AudioFormat) => `transcriptions/${tenantUuid}/${uuid}.${format}`;

async function headOf(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Checks an audio file by its content and stores it: its size against
 * TRANSCRIPTION_MAX_FILE_MB, its format by its first bytes (never its name), its
 * measured duration against TRANSCRIPTION_MAX_SECONDS. Each refusal is a 422 at `field`
 * (`file` or `url`) naming what is accepted or the limit. Nothing is stored unless all
 * pass. Runs with no transaction open: storing may call another system (S3).
 */
export async function takeAudio(
  deps: { audio: AudioModule; storage: FileStorage; settings: TranscriptionsSettings },
  tenant: TenantRef,
  file: { path: string; size: number },
  field: 'file' | 'url',
): Promise<TakenAudio> {
  const { audio, storage, settings } = deps;
  const refuse = (message: string) => ValidationError.field(field, message);
  if (file.size > maxBytesOf(settings)) throw refuse(`is larger than the limit of ${settings.maxFileMb} MiB (TRANSCRIPTION_MAX_FILE_MB)`);
  if (file.size === 0) throw refuse(`is empty: send audio (${ACCEPTED_FORMATS})`);
  const sniffed = audio.sniff(await headOf(file.path));
  if (!sniffed) throw refuse(`is not audio in an accepted format (${ACCEPTED_FORMATS}), judged by its content`);
  let durationSeconds: number;
  try {
    durationSeconds = await audio.durationSeconds(file.path, sniffed.format);
  } catch (error) {
    if (error instanceof AudioError) throw refuse(`cannot be read as ${sniffed.format} audio: ${error.message}`);
    throw error;
  }
  if (durationSeconds > settings.maxSeconds) {
    throw refuse(`is ${Math.round(durationSeconds)} seconds long, over the limit of ${settings.maxSeconds} seconds (TRANSCRIPTION_MAX_SECONDS)`);
  }
  const uuid = newUuid();
  const storageKey = storageKeyOf(tenant.uuid, uuid, sniffed.format);
  const stored = await storage.put(storageKey, createReadStream(file.path), { contentType: sniffed.mimeType, size: file.size });
  return { uuid, storageKey, storedFilePath: stored.path, format: sniffed.format, mimeType: sniffed.mimeType, sizeBytes: file.size, durationSeconds };
}

/** The file part of an upload, as the kernel hands it to `receiveAudio` (core/http/multipart-upload.ts). */
export type IncomingFile = Parameters<NonNullable<UploadSpec['receive']>>[0];

/**
 * An upload stored as it streamed in, checked and measured, under a key of its own
 * until the request's tenant is known (`keep`). The kernel calls `discard` when the
 * request fails or its response ends: after `keep` it does nothing.
 */
export interface ReceivedAudio {
  keep(tenant: TenantRef): Promise<TakenAudio>;
  discard(): Promise<void>;
}

/** Where uploads wait for their tenant; what is left there (a process died between) the incoming sweep removes. */
export const INCOMING_PREFIX = 'transcriptions/incoming/';

/** Where an upload waits for its tenant: the uuid is the transcription's. */
const incomingKeyOf = (uuid: string, format: AudioFormat) => `${INCOMING_PREFIX}${uuid}.${format}`;

/** The stream's first `bytes` (or all of it, when shorter), and what it holds after them. */
async function headOfStream(chunks: AsyncIterator<Buffer>, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
  const read: Buffer[] = [];
  let length = 0;
  while (length < bytes) {
    const next = await chunks.next();
    if (next.done) return { head: Buffer.concat(read), ended: true };
    read.push(next.value);
    length += next.value.length;
  }
  return { head: Buffer.concat(read), ended: false };
}

/**
 * `takeAudio` for an upload, as its bytes arrive: its format sniffed from the first
 * bytes, the rest streamed straight into storage (never spooled, never whole in memory)
 * and counted against TRANSCRIPTION_MAX_FILE_MB on the way, its duration told by the head
 * and the size (WAV) or measured from the stored file. Each refusal is a 422 at `file`,
 * and leaves nothing stored. The kernel runs it while it parses the body, so before the
 * tenant is known: the file waits under `transcriptions/incoming/` for `keep`.
 */
export async function receiveAudio(deps: { audio: AudioModule; storage: FileStorage; settings: TranscriptionsSettings }, incoming: IncomingFile): Promise<ReceivedAudio> {
  const { audio, storage, settings } = deps;
  const refuse = (message: string) => ValidationError.field('file', message);
  const maxBytes = maxBytesOf(settings);
  const tooLarge = () => refuse(`is larger than the limit of ${settings.maxFileMb} MiB (TRANSCRIPTION_MAX_FILE_MB)`);
  const source = incoming.stream;
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const { head, ended } = await headOfStream(chunks, HEAD_BYTES);
  if (head.length === 0) throw refuse(`is empty: send audio (${ACCEPTED_FORMATS})`);
  if (head.length > maxBytes) throw tooLarge();
  const sniffed = audio.sniff(head);
  if (!sniffed) throw refuse(`is not audio in an accepted format (${ACCEPTED_FORMATS}), judged by its content`);

  const uuid = newUuid();
  const key = incomingKeyOf(uuid, sniffed.format);
  let size = head.length;
  let refusal: ValidationError | undefined;
  async function* rest() {
    yield head;
    if (ended) return;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      size += next.value.length;
      if (size > maxBytes) throw (refusal = tooLarge());
      yield next.value;
    }
  }
  try {
    await storage.put(key, Readable.from(rest(), { objectMode: false }), { contentType: sniffed.mimeType });
  } catch (error) {
    // What stopped the bytes, before what the driver made of it: the size limit, or the
    // request's own failure (a body cut off: 400) that the kernel put on the stream.
    throw refusal ?? source.errored ?? error;
  }

  let durationSeconds: number;
  try {
    durationSeconds = (await audio.durationFromHead(head, size, sniffed.format)) ?? (await storedSeconds(deps, key, sniffed.format));
    if (durationSeconds > settings.maxSeconds) {
      throw refuse(`is ${Math.round(durationSeconds)} seconds long, over the limit of ${settings.maxSeconds} seconds (TRANSCRIPTION_MAX_SECONDS)`);
    }
  } catch (error) {
    await storage.remove(key).catch(() => {});
    if (error instanceof AudioError) throw refuse(`cannot be read as ${sniffed.format} audio: ${error.message}`);
    throw error;
  }

  let kept = false;
  return {
    async keep(tenant) {
      const storageKey = storageKeyOf(tenant.uuid, uuid, sniffed.format);
      const moved = await storage.move(key, storageKey);
      kept = true;
      return { uuid, storageKey, storedFilePath: moved.path, format: sniffed.format, mimeType: sniffed.mimeType, sizeBytes: size, durationSeconds };
    },
    async discard() {
      // A file the store failed to remove is left under transcriptions/incoming/ (no row points at it) for the incoming sweep.
      if (!kept) await storage.remove(key);
    },
  };
}

/** The duration of a stored file whose head did not tell it: read back into a temporary file and measured whole. */
async function storedSeconds(deps: { audio: AudioModule; storage: FileStorage }, key: string, format: AudioFormat): Promise<number> {
  const dir = await mkdtemp(path.join(tmpdir(), 'transcription-measure-'));
  try {
    const file = path.join(dir, `audio.${format}`);
    await pipeline((await deps.storage.read(key)).body, createWriteStream(file));
    return await deps.audio.durationSeconds(file, format);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
