import type { RecordJson } from './model/views';

/** Bus topics of the tables plugin. Record events are what the tables flow app's triggers start from. */
export const TABLE_TOPICS = {
  recordCreated: 'tables.record.created',
  recordUpdated: 'tables.record.updated',
  recordDeleted: 'tables.record.deleted',
  /** Job: run an import (payload ImportJob). */
  importRun: 'tables.import.run',
  /** Job: rebuild a table's search index (payload SyncJob). */
  indexSync: 'tables.index.sync',
} as const;

export interface RecordEvent {
  table_uuid: string;
  table_name: string;
  record: RecordJson;
}

export interface RecordUpdatedEvent extends RecordEvent {
  /** Names of the columns whose values the write changed. */
  changed: string[];
}

export interface RecordDeletedEvent {
  table_uuid: string;
  table_name: string;
  record_uuid: string;
}

export interface ImportJob {
  import_uuid: string;
}

export interface SyncJob {
  table_uuid: string;
}
