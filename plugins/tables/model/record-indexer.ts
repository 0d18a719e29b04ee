import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Keeps the search index current for single writes, in the writer's transaction
 * (bulk imports leave the index stale and a sync rebuilds it). Implemented by
 * `search/record-indexer.ts`; the record store calls it after every write.
 */
export interface RecordIndexer {
  /** Rebuilds the entries of these records (just created or updated) from their stored values. */
  refresh(em: EntityManager, tableUuid: string, recordUuids: readonly string[]): Promise<void>;
  /** Drops the entries of records being deleted. */
  remove(em: EntityManager, recordUuids: readonly string[]): Promise<void>;
}
