import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import type { DataTable } from '../entities';
import { TABLE_TOPICS, type SyncJob } from '../topics';
import { MARK_CURRENT, SYNC_ENTRIES, SYNC_VOCABULARY } from './index-statements';

/**
 * Rebuilds a table's search index from its records (entries, then the vocabulary drawn
 * from them) and marks it `current`, in the caller's transaction. Three statements
 * whatever the table's size. Nothing happens for a table that is not the tenant's.
 */
export async function syncTableIndex(em: EntityManager, tenantUuid: string, tableUuid: string): Promise<void> {
  const connection = em.getConnection();
  const ctx = em.getTransactionContext();
  const values = { tenant: tenantUuid, table: tableUuid };
  for (const statement of [SYNC_ENTRIES, SYNC_VOCABULARY, MARK_CURRENT]) await connection.execute(statement.text, statement.params(values), 'run', ctx);
}

/**
 * Marks the table `syncing` and queues the sync job, in the caller's transaction. The
 * job is keyed by table (the key the tables' own staleness uses too), so a sync asked
 * for again before the queued one starts replaces it: at most one waits behind a
 * running one, and it rebuilds from the records as they are when it runs.
 */
export async function queueIndexSync(em: EntityManager, bus: BusService, table: DataTable): Promise<void> {
  table.indexStatus = 'syncing';
  await em.flush();
  await bus.publish(TABLE_TOPICS.indexSync, { table_uuid: table.uuid } satisfies SyncJob, { key: `index-sync:${table.uuid}` });
}
