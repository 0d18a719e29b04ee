import type { BusService, Egress, HttpService, Logger, OrmService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import { TABLE_TOPICS, type RecordEvent, type SyncJob } from '../topics';
import type { TablesSettings } from '../tables-config';
import { assignmentRoutes } from './assignment-routes';
import { EMBED_TOPIC, embedBatch, queueEmbedding, storeBatch, type EmbedJob, type EmbeddedBatch } from './embeddings/embed-job';
import { VectorStore } from './embeddings/vector-store';
import { syncTableIndex } from './index-sync';
import { hybridSearch } from './knowledge-service';
import { searchRoutes } from './search-routes';
import { TableSearch } from './table-search';

export { createRecordIndexer } from './record-indexer';
export { createKnowledgeSearch } from './knowledge-service';
export { knowledgeSlot } from './knowledge-slot';

export interface SearchDeps {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  egress: Egress;
  logger: Logger;
  agents: AgentDirectory;
  settings: TablesSettings;
}

/**
 * Search, sync and assignment: the routes, the sync job that rebuilds a table's index
 * after bulk changes, and (with embeddings configured and pgvector present) the jobs
 * that embed new and changed entries.
 */
export function registerSearch({ http, bus, egress, logger, agents, settings }: SearchDeps): void {
  const store = new VectorStore(logger);
  const hybrid = hybridSearch(egress, settings, store);
  const search = new TableSearch(hybrid, logger);
  for (const route of [...searchRoutes({ bus, agents, search }), ...assignmentRoutes(agents)]) http.route(route);

  bus.consume<SyncJob>({ name: 'sync-index', topics: [TABLE_TOPICS.indexSync] }, async (message, { em }) => {
    if (!message.tenant) return;
    const started = performance.now();
    await syncTableIndex(em, message.tenant.uuid, message.payload.table_uuid);
    logger.info('table search index synced', { table_uuid: message.payload.table_uuid, duration_ms: Math.round(performance.now() - started) });
    if (hybrid && (await store.available(em))) await queueEmbedding(bus, message.payload.table_uuid);
  });

  if (hybrid) {
    bus.consume<EmbedJob, EmbeddedBatch | null>(
      {
        name: 'embed-index',
        topics: [EMBED_TOPIC],
        // The embeddings request runs before the message's transaction opens (embed-job.ts).
        prepare: (message, { em }) => (message.tenant ? embedBatch(em, hybrid.client, store, message.tenant.uuid, message.payload.table_uuid) : null),
      },
      async (message, { em, prepared }) => {
        if (!message.tenant) return;
        await storeBatch(em, bus, hybrid.client.model, store, message.tenant.uuid, message.payload.table_uuid, prepared);
      },
    );
    // Records written one at a time are in the full-text index at once; their embeddings follow (one keyed job per table absorbs a burst).
    bus.consume<RecordEvent>({ name: 'embed-written-records', topics: [TABLE_TOPICS.recordCreated, TABLE_TOPICS.recordUpdated] }, async (message, { em }) => {
      if (message.tenant && (await store.available(em))) await queueEmbedding(bus, message.payload.table_uuid);
    });
  }
}
