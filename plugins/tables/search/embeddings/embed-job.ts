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

/**
 * Embeds one batch of the table's entries that have no embedding for their current
 * document, stores them, and queues the next batch while there may be more. A failing
 * embeddings API fails the job, which the bus retries with backoff.
 */
export async function embedNextBatch(em: EntityManager, bus: BusService, client: EmbeddingsClient, store: VectorStore, tenantUuid: string, tableUuid: string): Promise<number> {
  if (!(await store.available(em))) return 0;
  const batch = await store.pending(em, tenantUuid, tableUuid, client.model, EMBED_BATCH);
  if (batch.length === 0) return 0;
  const vectors = await client.embed(batch.map((item) => item.document));
  await store.store(em, tenantUuid, tableUuid, client.model, batch.map((item, index) => ({ uuid: item.uuid, md5: item.md5, embedding: vectors[index] })));
  if (batch.length === EMBED_BATCH) await queueEmbedding(bus, tableUuid);
  return batch.length;
}
