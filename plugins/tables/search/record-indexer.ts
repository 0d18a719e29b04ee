import type { EntityManager } from '@mikro-orm/postgresql';
import { findByUuid } from '../../../core';
import { DataTable, TableSearchEntry } from '../entities';
import type { RecordIndexer } from '../model/record-indexer';
import { REFRESH_RECORDS } from './index-statements';
import { uuidArray } from './sql-values';

/**
 * Keeps the search index current for single writes, in the writer's transaction: the
 * records just written are searchable when it commits. Bulk imports skip this and
 * leave the table `stale` for a sync (see index-sync.ts).
 */
export function createRecordIndexer(): RecordIndexer {
  return {
    async refresh(em: EntityManager, tableUuid: string, recordUuids: readonly string[]) {
      if (recordUuids.length === 0) return;
      // The writer has just loaded the table, so this is the identity map, not a query.
      const table = await findByUuid(em, DataTable, tableUuid);
      if (!table) return;
      const params = REFRESH_RECORDS.params({ tenant: table.tenantUuid, table: table.uuid, records: uuidArray(recordUuids) });
      await em.getConnection().execute(REFRESH_RECORDS.text, params, 'run', em.getTransactionContext());
    },
    async remove(em: EntityManager, recordUuids: readonly string[]) {
      if (recordUuids.length === 0) return;
      // Through the ORM, so the tenant filter scopes it; an entry's embedding goes with it (foreign key).
      await em.nativeDelete(TableSearchEntry, { uuid: { $in: [...recordUuids] } });
    },
  };
}
