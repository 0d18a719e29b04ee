import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { startPeer, type Peer } from '../../../core/egress/peer-server';
import { AGENTS, TABLES, addRecords, createTable, searchTable, sql, waitForCurrentIndex } from './search-helpers';

// This machine's PostgreSQL has no pgvector: hybrid search must stay off however embeddings are configured.
// The hybrid path itself runs on a real pgvector (PGlite) in hybrid-search-pgvector.test.ts.
let kit: TestKernel;
let embeddings: Peer;
beforeAll(async () => {
  embeddings = await startPeer((_request, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data: [{ index: 0, embedding: [1, 0, 0] }] }));
  });
  kit = await startTestKernel({ plugins: [AGENTS, TABLES], config: { tables: { embeddingsUrl: embeddings.url, embeddingsModel: 'test-model' } } });
});
afterAll(async () => {
  await kit?.stop();
  await embeddings?.close();
});

describe('hybrid search without pgvector', () => {
  it('the migration created no vectors table (and no extension) where pgvector is not available', async () => {
    const [available] = await sql(kit, `select count(*)::int as n from pg_available_extensions where name = 'vector'`);
    expect(available.n).toBe(0);
    expect(await sql(kit, `select to_regclass('data_table_search_vectors')::text as t`)).toEqual([{ t: null }]);
  });

  it('searches and syncs lexically, without calling the embeddings API', async () => {
    const table = await createTable(kit.api, 'Lexical', [{ name: 'text', data_type: 'text' }]);
    await addRecords(kit.api, table, [{ text: 'kettle descaling' }]);
    await kit.api.post(`/api/v1/data/${table}/sync`).expect(200);
    await waitForCurrentIndex(kit.api, table);
    expect((await searchTable(kit.api, table, 'ketle'))[0].values).toEqual({ text: 'kettle descaling' });
    expect(embeddings.requests).toHaveLength(0);
  });
});
