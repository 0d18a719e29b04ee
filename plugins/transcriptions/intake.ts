import { open } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { ValidationError, newUuid, type TenantRef } from '../../core';
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
