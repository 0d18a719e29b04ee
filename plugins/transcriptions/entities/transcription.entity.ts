import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export const TRANSCRIPTION_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** One segment as stored and shown: times in seconds from the start of the whole recording. */
export interface StoredSegment {
  start: number;
  end: number;
  /** `agent` or `customer` (see into-conversation.ts for the rule); the server's own label is `speaker_label`. */
  speaker: 'agent' | 'customer';
  speaker_label: string | null;
  text: string;
}

export interface TranscriptionResult {
  text: string;
  language: string | null;
  duration: number;
  segments: StoredSegment[];
}

/**
 * One audio file to transcribe: where it is stored, what the provider made of it, and
 * the voice conversation it became. `callbackSecret` is sealed (secret-columns.ts).
 */
@Entity({ tableName: 'transcriptions' })
@Index({ name: 'transcriptions_list_index', expression: 'create index "transcriptions_list_index" on "transcriptions" ("tenant_uuid", "created_at" desc, "uuid" desc)' })
export class Transcription extends TenantScopedEntity {
  @Property({ type: 'text', nullable: true })
  referenceId: string | null = null;

  @Property({ type: 'text' })
  status: Opt<TranscriptionStatus> = 'queued';

  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  qaAgentUuid: string | null = null;

  @Property({ type: 'uuid', nullable: true })
  coachingAgentUuid: string | null = null;

  /** The `language` hint given with the request, sent to the provider. */
  @Property({ type: 'text', nullable: true })
  language: string | null = null;

  /** The key in the file storage (`transcriptions/<tenant>/<uuid>.<ext>`). */
  @Property({ type: 'text' })
  storageKey!: string;

  /** What the storage answered as the stored file's path. */
  @Property({ type: 'text' })
  storedFilePath!: string;

  @Property({ type: 'text' })
  format!: string;

  @Property({ type: 'text' })
  mimeType!: string;

  @Property({ type: 'int' })
  sizeBytes!: number;

  @Property({ type: 'double' })
  durationSeconds!: number;

  /** The client's name of the uploaded file, or the URL it was fetched from: data, never a path. */
  @Property({ type: 'text', nullable: true })
  sourceName: string | null = null;

  @Property({ type: 'text', nullable: true })
  sourceUrl: string | null = null;

  /** The origin the transcription was created through: the audio route's URL hangs under it. */
  @Property({ type: 'text' })
  apiOrigin!: string;

  @Property({ type: 'text', nullable: true })
  possibleLanguage: string | null = null;

  @Property({ type: 'json', nullable: true })
  result: TranscriptionResult | null = null;

  @Property({ type: 'text', nullable: true })
  errorMessage: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  processedAt: Date | null = null;

  @Property({ type: 'uuid', nullable: true })
  conversationUuid: string | null = null;

  @Property({ type: 'text', nullable: true })
  callbackUrl: string | null = null;

  @Property({ type: 'text', nullable: true })
  callbackSecret: string | null = null;

  /** Counts the processing runs: a retry of the job only acts on the run it belongs to. */
  @Property({ type: 'int' })
  runs: number & Opt = 0;
}
