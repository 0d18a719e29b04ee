import { Component, ReadOnly, Timestamp, Type, Uuid, type Static } from '../../core';
import type { FileStorage } from '../storage';
import { TRANSCRIPTION_STATUSES, type Transcription } from './entities';

const Segment = Type.Object({
  start: Type.Number({ description: 'Seconds from the start of the recording' }),
  end: Type.Number(),
  speaker: Type.Union([Type.Literal('agent'), Type.Literal('customer')], {
    description: 'Who spoke, as the conversation records it: with speakers from the server, the first to speak is the agent and every other the customer; without them, the customer',
  }),
  speaker_label: Type.Union([Type.String(), Type.Null()], { description: 'The speaker as the server named it; null when it names none' }),
  text: Type.String(),
});

const Result = Type.Object({
  text: Type.String(),
  language: Type.Union([Type.String(), Type.Null()]),
  duration: Type.Number(),
  segments: Type.Array(Segment),
});

export const TranscriptionSchema = Component(
  'Transcription',
  Type.Object({
    uuid: ReadOnly(Uuid()),
    reference_id: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union(TRANSCRIPTION_STATUSES.map((status) => Type.Literal(status)), { description: '`queued -> processing -> completed | failed`' }),
    stored_file_path: Type.String(),
    stored_file_url: Type.String({ description: 'A time-limited signed URL (S3 storage), else the authenticated `GET /api/v1/transcriptions/{uuid}/audio`' }),
    possible_language: Type.Union([Type.String(), Type.Null()], { description: 'The language the provider detected' }),
    transcription_result: Type.Union([Result, Type.Null()], { description: 'Null until completed' }),
    error_message: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp(),
    processed_at: Type.Union([Timestamp(), Type.Null()]),
    qa_agent_uuid: Type.Union([Uuid(), Type.Null()]),
    coaching_agent_uuid: Type.Union([Uuid(), Type.Null()]),
    agent_uuid: Type.Union([Uuid(), Type.Null()]),
    conversation_uuid: Type.Union([Uuid(), Type.Null()], { description: 'The `voice` conversation the transcription became (null before completion, or with no agent)' }),
    language: Type.Union([Type.String(), Type.Null()], { description: 'The language hint sent to the provider' }),
    duration_seconds: Type.Number({ description: 'Measured from the audio when it was taken' }),
    format: Type.String({ description: 'wav, mp3, m4a, ogg or webm, by content' }),
    size_bytes: Type.Integer(),
    source_url: Type.Union([Type.String(), Type.Null()]),
    callback_url: Type.Union([Type.String(), Type.Null()]),
    has_callback_secret: Type.Boolean(),
    updated_at: Timestamp(),
  }),
);
export type TranscriptionJson = Static<typeof TranscriptionSchema>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The audio route's URL, for storage that signs none. */
export const audioRouteUrl = (row: Transcription) => `${row.apiOrigin}/api/v1/transcriptions/${row.uuid}/audio`;

export function transcriptionJson(row: Transcription, storedFileUrl: string): TranscriptionJson {
  return {
    uuid: row.uuid,
    reference_id: row.referenceId,
    status: row.status,
    stored_file_path: row.storedFilePath,
    stored_file_url: storedFileUrl,
    possible_language: row.possibleLanguage,
    transcription_result: row.result,
    error_message: row.errorMessage,
    created_at: row.createdAt.toISOString(),
    processed_at: iso(row.processedAt),
    qa_agent_uuid: row.qaAgentUuid,
    coaching_agent_uuid: row.coachingAgentUuid,
    agent_uuid: row.agentUuid,
    conversation_uuid: row.conversationUuid,
    language: row.language,
    duration_seconds: row.durationSeconds,
    format: row.format,
    size_bytes: row.sizeBytes,
    source_url: row.sourceUrl,
    callback_url: row.callbackUrl,
    has_callback_secret: row.callbackSecret !== null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Shows rows: with the storage's signed URL (fresh at each read) or the audio route's. */
export function transcriptionViews(storage: FileStorage, ttlSeconds: number) {
  const urlOf = async (row: Transcription) => (await storage.signedUrl(row.storageKey, ttlSeconds)) ?? audioRouteUrl(row);
  return {
    one: async (row: Transcription) => transcriptionJson(row, await urlOf(row)),
    many: (rows: Transcription[]) => Promise.all(rows.map(async (row) => transcriptionJson(row, await urlOf(row)))),
  };
}
