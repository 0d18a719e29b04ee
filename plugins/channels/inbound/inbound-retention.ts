import type { EntityManager } from '@mikro-orm/postgresql';
import { scheduleHousekeeping, type LifecycleService, type Logger, type OrmService } from '../../../core';

/** Rows one statement deletes: its locks held briefly, yet well ahead of what hooks insert. */
export const PRUNE_BATCH = 1000;
/** How often a background process prunes; each run deletes all that is due, batch after batch. */
export const PRUNE_INTERVAL_MS = 60 * 60_000;

const DAY_MS = 86_400_000;

/**
 * The smallest UUIDv7 of the millisecond `at`: every row the hook made before it has a
 * smaller id. The hook gives each row a new time-ordered id (core's newUuid), so the
 * rows due are one range of the primary key index, and the table needs no index of its
 * own on `created_at` for them.
 */
export function uuidBefore(at: Date): string {
  const hex = Math.max(0, at.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * Deletes the replay-protection rows of inbound messages (`channel_inbound_messages`)
 * older than `retentionDays`, of every tenant, `batchSize` at a time, until a batch comes
 * back short or `signal` aborts; returns how many it deleted. A provider retries a
 * message for minutes to a day or so: after the retention a retry is no longer expected,
 * and the row only costs space. Several processes may prune at once: each skips the rows
 * another is deleting.
 */
export async function pruneInboundMessages(em: EntityManager, retentionDays: number, options: { batchSize?: number; signal?: AbortSignal; now?: Date } = {}): Promise<number> {
  const batchSize = options.batchSize ?? PRUNE_BATCH;
  const cutoff = new Date((options.now ?? new Date()).getTime() - retentionDays * DAY_MS);
  const connection = em.getConnection();
  let total = 0;
  while (!options.signal?.aborted) {
    const result = await connection.execute(
      'delete from channel_inbound_messages where uuid in (' +
        'select uuid from channel_inbound_messages where uuid < ?::uuid and created_at < ? order by uuid limit ? for update skip locked)',
      [uuidBefore(cutoff), cutoff, batchSize],
      'run',
    );
    const deleted = (result as { affectedRows?: number }).affectedRows ?? 0;
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

export interface InboundRetentionDeps {
  lifecycle: LifecycleService;
  orm: OrmService;
  logger: Logger;
  /** CHANNELS_INBOUND_RETENTION_DAYS; 0 keeps the rows for ever. */
  retentionDays: number;
}

/** Prunes in the processes that do background work, at their start and then every PRUNE_INTERVAL_MS. */
export function scheduleInboundRetention({ lifecycle, orm, logger, retentionDays }: InboundRetentionDeps): void {
  if (retentionDays <= 0) return;
  scheduleHousekeeping(lifecycle, logger, {
    what: 'pruning inbound message ids',
    everyMs: PRUNE_INTERVAL_MS,
    run: async (signal) => {
      const deleted = await pruneInboundMessages(orm.fork() as EntityManager, retentionDays, { signal });
      if (deleted > 0) logger.info('pruned old inbound message ids', { deleted });
    },
  });
}
