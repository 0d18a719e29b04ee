import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService } from '../../../../core';
import { EMBED_BATCH, EMBED_TOPIC, embedBatch, storeBatch } from '../../../../plugins/tables/search/embeddings/embed-job';
import type { EmbeddingsClient } from '../../../../plugins/tables/search/embeddings/embeddings-client';
import type { PendingDocument, VectorStore } from '../../../../plugins/tables/search/embeddings/vector-store';

// The job's logic, against a store double; the vector SQL runs on a real pgvector (PGlite) in hybrid-search-pgvector.test.ts.
const TENANT = '01960000-0000-7000-8000-00000000000a';
const TABLE = '01960000-0000-7000-8000-00000000000b';
const em = {} as EntityManager;

function doubles(pending: PendingDocument[], available = true) {
  const stored: Array<{ uuid: string; md5: string; embedding: readonly number[] }> = [];
  const published: Array<{ topic: string; payload: unknown; key?: string }> = [];
  const embedded: string[][] = [];
  const store = {
    available: async () => available,
    pending: async (_em: EntityManager, tenant: string, table: string, model: string, limit: number) => {
      expect([tenant, table, model, limit]).toEqual([TENANT, TABLE, 'model-x', EMBED_BATCH]);
      return pending.slice(0, limit);
    },
    store: async (_em: EntityManager, _tenant: string, _table: string, _model: string, items: typeof stored) => void stored.push(...items),
  } as unknown as VectorStore;
  const client: EmbeddingsClient = {
    model: 'model-x',
    embed: async (texts) => {
      embedded.push([...texts]);
      return texts.map((text) => [text.length, 1]);
    },
  };
  const bus = { publish: async (topic: string, payload: unknown, options?: { key?: string }) => (published.push({ topic, payload, key: options?.key }), 'id') } as unknown as BusService;
  return { store, client, bus, stored, published, embedded };
}

const docs = (count: number): PendingDocument[] => Array.from({ length: count }, (_, i) => ({ uuid: `uuid-${i}`, document: `doc ${i}`, md5: `md5-${i}` }));

/** The job's two halves, as the consumer runs them: prepare (embed), then the handler (store). */
async function embedNextBatch(manager: EntityManager, bus: BusService, client: EmbeddingsClient, store: VectorStore, tenant: string, table: string): Promise<number> {
  return storeBatch(manager, bus, client.model, store, tenant, table, await embedBatch(manager, client, store, tenant, table));
}

describe('embedBatch, then storeBatch', () => {
  it('embeds the pending documents in one request and stores each vector with its document hash', async () => {
    const { store, client, bus, stored, published, embedded } = doubles(docs(2));
    expect(await embedNextBatch(em, bus, client, store, TENANT, TABLE)).toBe(2);
    expect(embedded).toEqual([['doc 0', 'doc 1']]);
    expect(stored).toEqual([
      { uuid: 'uuid-0', md5: 'md5-0', embedding: [5, 1] },
      { uuid: 'uuid-1', md5: 'md5-1', embedding: [5, 1] },
    ]);
    expect(published).toEqual([]);
  });

  it('queues the next batch (keyed by table) when the batch was full', async () => {
    const { store, client, bus, stored, published } = doubles(docs(EMBED_BATCH + 5));
    expect(await embedNextBatch(em, bus, client, store, TENANT, TABLE)).toBe(EMBED_BATCH);
    expect(stored).toHaveLength(EMBED_BATCH);
    expect(published).toEqual([{ topic: EMBED_TOPIC, payload: { table_uuid: TABLE }, key: `index-embed:${TABLE}` }]);
  });

  it('does nothing without pending documents, or without the vectors table', async () => {
    const idle = doubles([]);
    expect(await embedNextBatch(em, idle.bus, idle.client, idle.store, TENANT, TABLE)).toBe(0);
    expect(idle.embedded).toEqual([]);
    const absent = doubles(docs(3), false);
    expect(await embedNextBatch(em, absent.bus, absent.client, absent.store, TENANT, TABLE)).toBe(0);
    expect(absent.embedded).toEqual([]);
  });
});
