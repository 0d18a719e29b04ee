import type { EntityManager } from '@mikro-orm/postgresql';
import type { FlowsRuntime } from '../flows-runtime';

/** Rows one statement deletes: short enough to hold its locks briefly, long enough to outpace ingest. */
export const PRUNE_BATCH = 1000;
/** How often a worker prunes; each run deletes everything that is due, batch after batch. */
export const PRUNE_INTERVAL_MS = 60_000;

/**
 * Deletes finished executions created more than `retentionDays` ago, in every tenant,
 * `batchSize` at a time (their step records go with them, by cascade), until a batch
 * comes back short; returns how many it deleted. Each batch is its own statement and
 * commit, oldest first along the `created_at` index. Several workers may prune at once:
 * each skips the rows another is deleting. A paused execution is kept however old,
 * so a long delay still resumes.
 */
export async function pruneExecutions(em: EntityManager, retentionDays: number, batchSize = PRUNE_BATCH): Promise<number> {
  const connection = em.getConnection();
  let total = 0;
  for (;;) {
    const result = await connection.execute(
      `delete from flow_executions where uuid in (` +
        `select uuid from flow_executions where created_at < clock_timestamp() - (? * interval '1 day') and status in ('succeeded', 'failed') ` +
        `order by created_at limit ? for update skip locked)`,
      [retentionDays, batchSize],
      'run',
    );
    const deleted = (result as { affectedRows?: number }).affectedRows ?? 0;
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/** Prunes on a timer in processes that do background work (`worker`, `start`). */
export function scheduleRetention({ lifecycle, orm, config, logger }: FlowsRuntime): void {
  if (lifecycle.role !== 'worker' && lifecycle.role !== 'start') return;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running = pruneExecutions(orm.fork(), config.get<number>('executionRetentionDays'))
      .then((deleted) => {
        if (deleted > 0) logger.info('pruned old flow executions', { deleted });
      })
      .catch((error) => {
        logger.warn('pruning flow executions failed; the next run tries again', { error: String(error) });
      })
      .finally(() => {
        running = undefined;
        if (timer) timer = setTimeout(tick, PRUNE_INTERVAL_MS).unref();
      });
  };
  lifecycle.onStart(() => {
    timer = setTimeout(tick, PRUNE_INTERVAL_MS).unref();
  });
  lifecycle.onStop(async () => {
    clearTimeout(timer);
    timer = undefined;
    await running;
  });
}
