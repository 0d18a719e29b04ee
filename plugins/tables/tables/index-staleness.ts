import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../core';
import type { DataTable } from '../entities';
import { TABLE_TOPICS, type SyncJob } from '../topics';

/**
 * The table's search documents no longer match its records (its language changed, a
 * column was renamed or deleted): mark the index stale and queue a sync, in the
 * caller's transaction, so search catches up without anyone asking.
 */
export async function markIndexStale(em: EntityManager, bus: BusService, table: DataTable): Promise<void> {
  table.indexStatus = 'stale';
  await em.flush();
  await bus.publish(TABLE_TOPICS.indexSync, { table_uuid: table.uuid } satisfies SyncJob, { key: `index-sync:${table.uuid}` });
}
