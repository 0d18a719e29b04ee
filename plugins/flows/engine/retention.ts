import type { EntityManager } from '@mikro-orm/postgresql';
import { scheduleHousekeeping } from '../../../core';
import type { FlowsRuntime } from '../flows-runtime';

/** Rows one statement deletes: short enough to hold its locks briefly, long enough to outpace ingest. */
export const PRUNE_BATCH = 1000;
/** How often a worker prunes; each run deletes everything that is due, batch after batch. */
export const PRUNE_INTERVAL_MS = 60_000;

/**
 * Deletes finished executions created more than `retentionDays` ago, in every tenant,
 * `batchSize` at a time (their step records go with them, by cascade), until a batch
 * comes back short or `signal` aborts; returns how many it deleted. Each batch is its
 * own statement and commit, oldest first along the `created_at` index. Several workers
 * may prune at once: each skips the rows another is deleting. A paused execution is
 * kept however old, so a long delay still resumes.
 */
export async function pruneExecutions(em: EntityManager, retentionDays: number, options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<number> {
  const batchSize = options.batchSize ?? PRUNE_BATCH;
  const connection = em.getConnection();
  let total = 0;
  while (!options.signal?.aborted) {
    const result = await connection.execute(
      `delete from flow_executions where uuid in (` +
        `select uuid from flow_executions where created_at < clock_timestamp() - (? * interval '1 day') and status in ('succeeded', 'failed') ` +
        `order by created_at limit ? for update skip locked)`,
      [retentionDays, batchSize],
      'run',
    );
    const deleted = (result as { affectedRows?: number }).affectedRows ?? 0;
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

/** Prunes in the processes that do background work, at their start and then every PRUNE_INTERVAL_MS. */
export function scheduleRetention({ lifecycle, orm, config, logger }: FlowsRuntime): void {
  scheduleHousekeeping(lifecycle, logger, {
    what: 'pruning flow executions',
    everyMs: PRUNE_INTERVAL_MS,
    run: async (signal) => {
      const deleted = await pruneExecutions(orm.fork(), config.get('executionRetentionDays'), { signal });
      if (deleted > 0) logger.info('pruned old flow executions', { deleted });
    },
  });
}
