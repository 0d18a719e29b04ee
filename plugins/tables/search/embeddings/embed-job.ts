import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../../core';
import type { EmbeddingsClient } from './embeddings-client';
import type { VectorStore } from './vector-store';

/** Job: embed the next batch of a table's entries that lack an embedding (payload EmbedJob). */
export const EMBED_TOPIC = 'tables.index.embed';
/** Documents per embeddings request (and per job, so one transaction stays short). */
export const EMBED_BATCH = 64;

export interface EmbedJob {
  table_uuid: string;
}

/** Queues embedding of the table's new and changed entries (keyed: one waiting job per table). */
export function queueEmbedding(bus: BusService, tableUuid: string): Promise<string> {
  return bus.publish(EMBED_TOPIC, { table_uuid: tableUuid } satisfies EmbedJob, { key: `index-embed:${tableUuid}` });
}

/** One batch of a table's entries with their embeddings, as the job's prepare leaves it for its handler. */
export interface EmbeddedBatch {
  items: Array<{ uuid: string; md5: string; embedding: readonly number[] }>;
  /** The batch was full: there may be more. */
  full: boolean;
}

/**
 * The job's first half, its `prepare` (outside any transaction: the embeddings API may
 * take up to a minute, and no database connection waits on it): the next batch of the
 * table's entries that have no embedding for their current document, embedded. Null
 * when there is none, or no vectors table. A failing embeddings API fails the job,
 * which the bus retries with backoff.
 */
export async function embedBatch(em: EntityManager, client: EmbeddingsClient, store: VectorStore, tenantUuid: string, tableUuid: string): Promise<EmbeddedBatch | null> {
  if (!(await store.available(em))) return null;
  const batch = await store.pending(em, tenantUuid, tableUuid, client.model, EMBED_BATCH);
  if (batch.length === 0) return null;
  const vectors = await client.embed(batch.map((item) => item.document));
  return { items: batch.map((item, index) => ({ uuid: item.uuid, md5: item.md5, embedding: vectors[index] })), full: batch.length === EMBED_BATCH };
}

/**
 * The job's second half, its handler (in the message's transaction): stores the
 * embeddings (one whose entry changed or went meanwhile is skipped) and queues the
 * next batch while there may be more. Returns the number of entries in the batch.
 */
export async function storeBatch(em: EntityManager, bus: BusService, model: string, store: VectorStore, tenantUuid: string, tableUuid: string, batch: EmbeddedBatch | null): Promise<number> {
  if (!batch) return 0;
  await store.store(em, tenantUuid, tableUuid, model, batch.items);
  if (batch.full) await queueEmbedding(bus, tableUuid);
  return batch.items.length;
}
