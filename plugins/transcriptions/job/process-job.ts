import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findByUuid, type BusMessage } from '../../../core';
import { AudioError, type AudioFormat } from '../audio/audio-types';
import { Transcription, type TranscriptionResult } from '../entities';
import { ProviderError } from '../provider/transcription-client';
import { transcribeRecording } from '../provider/transcribe-recording';
import { TRANSCRIPTION_TOPICS, type TranscribePayload } from '../topics';
import { announceOutcome } from './announce';
import type { TranscriptionDeps } from './deps';
import { intoConversation } from './into-conversation';

type Outcome = { kind: 'skip' } | { kind: 'completed'; result: TranscriptionResult } | { kind: 'failed'; error: string };

/** The run a message belongs to is the row's current one, still processing: anything else is a stale or repeated message. */
const current = (row: Transcription | null, run: number): row is Transcription => row !== null && row.status === 'processing' && row.runs === run;

const MAX_ERROR = 2000;

/**
 * The provider's work for one run, with no transaction open (the bus's `prepare`): the
 * stored file copied to a temporary one, cut if long, sent, stitched. A failure worth
 * another try (429, 5xx, the network, storage) is thrown while tries remain, so the bus
 * retries it with backoff; the last try's failure, or one that another try would repeat
 * (another 4xx, audio that cannot be read), is the outcome `failed`.
 */
async function transcribe(deps: TranscriptionDeps, message: BusMessage<TranscribePayload>, em: EntityManager): Promise<Outcome> {
  const row = await findByUuid(em, Transcription, message.payload.uuid);
  if (!current(row, message.payload.run)) return { kind: 'skip' };
  const { settings } = deps;
  const dir = await mkdtemp(path.join(tmpdir(), 'transcription-'));
  try {
    const file = path.join(dir, `audio.${row.format}`);
    const stored = await deps.storage.read(row.storageKey);
    await pipeline(stored.body, createWriteStream(file));
    const result = await transcribeRecording(
      {
        egress: deps.egress,
        audio: deps.audio,
        chunkSeconds: settings.chunkSeconds,
        provider: { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs },
      },
      { path: file, format: row.format as AudioFormat, mimeType: row.mimeType, durationSeconds: row.durationSeconds, language: row.language },
    );
    return { kind: 'completed', result };
  } catch (error) {
    const final = error instanceof AudioError || (error instanceof ProviderError && !error.retryable) || message.attempt >= settings.attempts;
    if (!final) throw error;
    const text = error instanceof Error ? error.message : String(error);
    const tries = message.attempt > 1 ? ` (after ${message.attempt} tries)` : '';
    return { kind: 'failed', error: `${text}${tries}`.slice(0, MAX_ERROR) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The job: `queued -> processing` (its own short transaction, so the state shows while
 * the provider works), then the provider's work in `prepare` and its outcome written in
 * the handler: `completed` with the result and the conversation it becomes, or
 * `failed` with the error; either way the callback and events are published in the same
 * transaction.
 */
export function registerTranscriptionJob(deps: TranscriptionDeps): void {
  const { bus, settings } = deps;

  bus.consume<{ uuid: string }>({ name: 'start', topics: [TRANSCRIPTION_TOPICS.queued], concurrency: 4 }, async (message, { em }) => {
    const row = await findByUuid(em, Transcription, message.payload.uuid);
    if (!row || row.status !== 'queued') return;
    row.status = 'processing';
    row.runs += 1;
    await em.flush();
    await bus.publish(TRANSCRIPTION_TOPICS.transcribe, { uuid: row.uuid, run: row.runs } satisfies TranscribePayload);
  });

  bus.consume<TranscribePayload, Outcome>(
    {
      name: 'transcribe',
      topics: [TRANSCRIPTION_TOPICS.transcribe],
      concurrency: 4,
      retry: { attempts: Math.max(1, settings.attempts), backoff: { initialMs: settings.retryBackoffMs, factor: 4, maxMs: 600_000 } },
      prepare: (message, { em }) => transcribe(deps, message, em),
    },
    async (message, { em, prepared }) => {
      if (prepared.kind === 'skip') return;
      const row = await findByUuid(em, Transcription, message.payload.uuid);
      // Deleted, or another run's outcome already written while the provider worked.
      if (!current(row, message.payload.run)) return;
      row.processedAt = new Date();
      if (prepared.kind === 'completed') {
        row.status = 'completed';
        row.result = prepared.result;
        row.possibleLanguage = prepared.result.language;
        row.errorMessage = null;
        row.conversationUuid = await intoConversation(em, deps, row);
      } else {
        row.status = 'failed';
        row.errorMessage = prepared.error;
      }
      await em.flush();
      await announceOutcome(deps, row);
    },
  );
}
