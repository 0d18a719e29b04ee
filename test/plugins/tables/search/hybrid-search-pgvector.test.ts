import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../../core/testing';
import { VectorStore } from '../../../../plugins/tables/search/embeddings/vector-store';
import { vectorIndexName } from '../../../../plugins/tables/search/embeddings/vector-index';
import { QUERY_TIMEOUT_MS } from '../../../../plugins/tables/search/embeddings/embeddings-client';
import { LIST_DEPTH, lexicalLists } from '../../../../plugins/tables/search/lexical-lists';
import { RRF_K } from '../../../../plugins/tables/search/rank-fusion';
import { conceptVector, startConceptEmbeddings, type ConceptEmbeddings } from './concept-embeddings';
import { startPgliteServer, type PgliteServer } from './pglite-server';
import { AGENTS, TABLES, addRecords, createAgent, createTable, searchTable, sql, waitForCurrentIndex, type Hit } from './search-helpers';

// Hybrid search end to end, on a real pgvector: the machine's PostgreSQL has none
// (hybrid-search.test.ts proves search stays lexical there), so this kernel runs on
// PGlite (pglite-server.ts). The embeddings API is a fake whose vectors encode meaning
// by concept (concept-embeddings.ts): a query that shares no word and no spelling with
// a record finds it only through vector similarity.

const MODEL = 'test-model';
/** A record found by one list only, at its top: its fused score (rank-fusion.ts). */
const TOP_OF_ONE_LIST = 1 / (RRF_K + 1);

let pglite: PgliteServer;
let embeddings: ConceptEmbeddings;
let kit: TestKernel;

// PGlite takes seconds to start and runs every statement on one WASM backend: one kernel for the file.
beforeAll(async () => {
  pglite = await startPgliteServer();
  embeddings = await startConceptEmbeddings(MODEL);
  kit = await startTestKernel({
    plugins: [AGENTS, TABLES],
    databaseUrl: pglite.url,
    config: {
      // Every connection shares PGlite's one session (pglite-server.ts): named statements of two connections would collide.
      databasePreparedStatements: false,
      // For the same reason the outbox's NOTIFY reaches the connection that committed it, never the relay's
      // LISTEN connection: the relay's safety-net poll is what wakes it here, so it polls often.
      busPollIntervalMs: 50,
      tables: { embeddingsUrl: embeddings.url, embeddingsModel: MODEL },
    },
  });
}, 120_000);
afterAll(async () => {
  await kit?.stop();
  await embeddings?.close();
  await pglite?.stop();
});

jest.setTimeout(60_000);

describe('hybrid search on PostgreSQL with pgvector (PGlite)', () => {
  let household: string;
  let records: Record<'kettle' | 'teapot' | 'invoice' | 'sofa' | 'doctor', string>;
  const texts = {
    kettle: 'Descale the kettle with white vinegar',
    teapot: 'Teapot, cast iron',
    invoice: 'Pay the electricity invoice before Friday',
    sofa: 'Vacuum under the sofa cushions',
    doctor: 'Book a doctor appointment',
  };

  beforeAll(async () => {
    household = await createTable(kit.api, 'Household', [{ name: 'text', data_type: 'text' }]);
    const uuids = await addRecords(kit.api, household, Object.values(texts).map((text) => ({ text })));
    records = Object.fromEntries(Object.keys(texts).map((name, index) => [name, uuids[index]])) as typeof records;
    await kit.api.post(`/api/v1/data/${household}/sync`).expect(200);
    await waitForCurrentIndex(kit.api, household);
    await waitForEmbeddings(household);
  });

  it('migration 0002 created the vector extension and the vectors table', async () => {
    expect(await sql(kit, `select extname from pg_extension where extname = 'vector'`)).toEqual([{ extname: 'vector' }]);
    expect(await sql(kit, `select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'data_table_search_vectors'::regclass and attname = 'embedding'`)).toEqual([
      { type: 'vector' },
    ]);
  });

  it('the embed job stored one vector per record, of the model, with its document’s hash and embedding', async () => {
    const rows = await vectorsOf(household);
    expect(rows.map((row) => row.uuid).sort()).toEqual(Object.values(records).sort());
    for (const [name, uuid] of Object.entries(records)) {
      const text = texts[name as keyof typeof texts];
      const row = rows.find((candidate) => candidate.uuid === uuid)!;
      // A one-column record's document is its value.
      expect(row).toMatchObject({ tenant_uuid: kit.tenant.uuid, model: MODEL, document_md5: md5(text) });
      expect(row.embedding).toEqual(conceptVector(text).map((x) => expect.closeTo(x, 5)));
    }
    expect(embeddings.inputs).toEqual(expect.arrayContaining(Object.values(texts)));
  });

  it('the embed job made the nearest-neighbour index of the model and length, and the vector statement can use it', async () => {
    const length = conceptVector('x').length;
    const name = vectorIndexName(MODEL, length);
    const [index] = await sql<{ indexdef: string }>(kit, 'select indexdef from pg_indexes where indexname = ?', [name]);
    expect(index.indexdef).toContain('USING hnsw');
    expect(index.indexdef).toContain(`vector(${length})) vector_cosine_ops`);
    expect(index.indexdef).toContain(`model = '${MODEL}'::text`);
    expect(index.indexdef).toContain(`vector_dims(embedding) = ${length}`);
    // The statement nearest() sends, planned where a sort is all but ruled out: only the index gives its order, so
    // a plan through it proves the statement's expression and conditions match the index's (the planner picks it
    // by cost on its own when a table has many vectors; at five a sort is cheaper).
    const em = kit.kernel.orm.em.fork();
    const connection = em.getConnection();
    const spy = jest.spyOn(connection, 'execute');
    let statement: [string, unknown[]];
    try {
      await new VectorStore().nearest(em, kit.tenant.uuid, [household], MODEL, conceptVector('kettle'), LIST_DEPTH);
      statement = spy.mock.calls.map((call) => [String(call[0]), (call[1] ?? []) as unknown[]] as [string, unknown[]]).find(([text]) => text.includes('<=>'))!;
    } finally {
      spy.mockRestore();
    }
    const plan = await em.fork().transactional(async (tx: EntityManager) => {
      await tx.getConnection().execute('set local enable_sort = off', [], 'run', tx.getTransactionContext());
      const rows = await tx.getConnection().execute(`explain ${statement[0]}`, statement[1], 'all', tx.getTransactionContext());
      return rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain(`Index Scan using ${name}`);
  });

  it('finds a record by a synonym no lexical list finds', async () => {
    // The premise: neither the full-text nor the fuzzy list has anything for the query.
    expect(await lexical(kit.tenant.uuid, [household], 'physician')).toEqual({ exact: [], fuzzy: [] });
    const hits = await searchTable(kit.api, household, 'physician');
    expect(hits[0]).toMatchObject({ record_uuid: records.doctor, values: { text: texts.doctor } });
    expect(hits[0].score).toBeCloseTo(TOP_OF_ONE_LIST, 10);
    expect(embeddings.inputs).toContain('physician');
  });

  it('fusion ranks an exact lexical match above a record nearer in meaning only (rank-fusion.ts)', async () => {
    // The premise: the vector list alone puts the teapot first (it has fewer other words), the kettle second.
    expect((await nearest(kit.tenant.uuid, [household], 'kettle')).slice(0, 2)).toEqual([records.teapot, records.kettle]);
    expect((await lexical(kit.tenant.uuid, [household], 'kettle')).exact).toEqual([records.kettle]);
    // Fused: the kettle, high in several lists, beats the teapot, at the top of one.
    const hits = await searchTable(kit.api, household, 'kettle');
    expect(hits.slice(0, 2).map((hit) => hit.record_uuid)).toEqual([records.kettle, records.teapot]);
    expect(hits[1].score).toBeCloseTo(TOP_OF_ONE_LIST, 10);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it('holds no database connection while it waits for the query’s embedding', async () => {
    // PGlite has one session, which a client inside a transaction keeps (pglite-server.ts): a search waiting for its
    // embedding inside a transaction would keep every other request waiting too.
    const asked = embeddings.inputs.filter((input) => input === 'bill').length;
    const release = embeddings.hold('bill');
    let search: Promise<Hit[]> | undefined;
    try {
      search = searchTable(kit.api, household, 'bill');
      await until(() => embeddings.inputs.filter((input) => input === 'bill').length > asked, 'the query at the embeddings API');
      const other = kit.api.get(`/api/v1/data/${household}`).then((res) => res.status);
      // Well before the search would give up on the embedding (and end its transaction) at QUERY_TIMEOUT_MS.
      expect(await Promise.race([other, sleep(QUERY_TIMEOUT_MS / 2).then(() => 'still waiting')])).toBe(200);
    } finally {
      release();
    }
    expect((await search)[0]).toMatchObject({ record_uuid: records.invoice });
  });

  it('the embed job holds no database connection while the embeddings API answers (its request is the consumer’s prepare)', async () => {
    const shed = await createTable(kit.api, 'Shed', [{ name: 'text', data_type: 'text' }]);
    const release = embeddings.hold('lantern');
    try {
      await addRecords(kit.api, shed, [{ text: 'Lantern oil' }]);
      await until(() => embeddings.inputs.includes('Lantern oil'), 'the embed job at the embeddings API');
      const other = kit.api.get(`/api/v1/data/${household}`).then((res) => res.status);
      expect(await Promise.race([other, sleep(QUERY_TIMEOUT_MS / 2).then(() => 'still waiting')])).toBe(200);
    } finally {
      release();
    }
    await waitForEmbeddings(shed);
  });

  it('leaves out what the query excludes (-word) from the vector list too', async () => {
    // The premise: without the exclusion, the vector list brings the kettle (its vinegar excluded below).
    expect(await nearest(kit.tenant.uuid, [household], 'teapot')).toContain(records.kettle);
    const hits = await searchTable(kit.api, household, 'teapot -vinegar');
    expect(hits[0].record_uuid).toBe(records.teapot);
    expect(hits.map((hit) => hit.record_uuid)).not.toContain(records.kettle);
    // What is embedded is what the query asks for, not what it excludes.
    expect(embeddings.inputs).toContain('teapot');
    expect(embeddings.inputs.filter((input) => input.includes('vinegar') && input !== texts.kettle)).toEqual([]);
  });

  it('re-embeds an updated record; its stale vector is not used meanwhile', async () => {
    const chores = await createTable(kit.api, 'Chores', [{ name: 'text', data_type: 'text' }]);
    const [chore, other] = await addRecords(kit.api, chores, [{ text: 'Descale the kettle' }, { text: 'Pay the invoice' }]);
    await waitForEmbeddings(chores);
    expect((await searchTable(kit.api, chores, 'teapot'))[0].record_uuid).toBe(chore);
    const before = (await vectorsOf(chores)).find((row) => row.uuid === chore)!;

    // The new text is refused by the embeddings API for a while: the record keeps its old vector.
    const changed = 'Brush the couch weekly';
    embeddings.refuse('weekly');
    try {
      await kit.api.put(`/api/v1/data/${chores}/records/${chore}`).send({ values: { text: changed } }).expect(200);
      await until(() => embeddings.refused.includes(changed), 'the embed job to ask for the changed document');
      expect((await vectorsOf(chores)).find((row) => row.uuid === chore)).toMatchObject({ document_md5: before.document_md5 });
      // A vector of the old text would still rank the record first for the old meaning.
      expect((await searchTable(kit.api, chores, 'teapot')).map((hit) => hit.record_uuid)).toEqual([other]);
    } finally {
      embeddings.allowAll();
    }

    // The bus retries the failed job: the record is embedded anew, and found by the new meaning.
    await waitForEmbeddings(chores);
    const after = (await vectorsOf(chores)).find((row) => row.uuid === chore)!;
    expect(after.document_md5).toBe(md5(changed));
    expect(after.embedding).toEqual(conceptVector(changed).map((x) => expect.closeTo(x, 5)));
    expect((await searchTable(kit.api, chores, 'sofa'))[0]).toMatchObject({ record_uuid: chore, values: { text: changed } });
  });

  it('embeddings too long for an index are stored and searched exactly, with one warning, and do not fail the job', async () => {
    const wide = await createTable(kit.api, 'Wide', [{ name: 'text', data_type: 'text' }]);
    const [record] = await addRecords(kit.api, wide, [{ text: 'Wide kettle' }]);
    await waitForEmbeddings(wide);
    // pgvector's HNSW takes at most 2,000 dimensions of `vector`.
    const long = Array.from({ length: 2001 }, (_, index) => (index === 7 ? 1 : 0));
    const warnings: Array<[string, Record<string, unknown>]> = [];
    const store = new VectorStore({ warn: (message: string, meta: Record<string, unknown>) => void warnings.push([message, meta]) } as never);
    // All in one transaction (the failed index build must leave it usable), so that an embed job of the test model,
    // which would replace this vector (one per record), cannot run in between.
    await kit.kernel.orm.em.fork().transactional(async (em: EntityManager) => {
      for (let round = 0; round < 2; round++) await store.store(em, kit.tenant.uuid, wide, 'wide-model', [{ uuid: record, md5: md5('Wide kettle'), embedding: long }]);
      const stored = await em.getConnection().execute(
        'select uuid::text as uuid, model, vector_dims(embedding) as length from data_table_search_vectors where table_uuid = ?',
        [wide],
        'all',
        em.getTransactionContext(),
      );
      expect(stored).toEqual([{ uuid: record, model: 'wide-model', length: 2001 }]);
      expect(await store.nearest(em, kit.tenant.uuid, [wide], 'wide-model', long, LIST_DEPTH)).toEqual([record]);
    });
    expect(await sql(kit, 'select indexname from pg_indexes where indexname = ?', [vectorIndexName('wide-model', 2001)])).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0][1]).toMatchObject({ model: 'wide-model', dimensions: 2001 });
  });

  it('a deleted record’s vector goes with it, and a deleted table’s vectors with the table', async () => {
    const attic = await createTable(kit.api, 'Attic', [{ name: 'text', data_type: 'text' }]);
    const [gone, kept] = await addRecords(kit.api, attic, [{ text: 'Old kettle' }, { text: 'Old sofa' }]);
    await waitForEmbeddings(attic);
    await kit.api.delete(`/api/v1/data/${attic}/records/${gone}`).expect(200);
    expect((await vectorsOf(attic)).map((row) => row.uuid)).toEqual([kept]);
    expect((await searchTable(kit.api, attic, 'teapot')).map((hit) => hit.record_uuid)).toEqual([kept]);
    await kit.api.delete(`/api/v1/data/${attic}`).expect(200);
    expect(await vectorsOf(attic)).toEqual([]);
  });

  describe('across tables and tenants', () => {
    let agent: string;
    let garage: string;
    let serviced: string;
    let stranger: TestTenant;
    let strangerTable: string;
    let strangerRecord: string;

    beforeAll(async () => {
      agent = await createAgent(kit.api, 'Butler');
      garage = await createTable(kit.api, 'Garage', [{ name: 'task', data_type: 'text' }]);
      [serviced] = await addRecords(kit.api, garage, [{ task: 'Service the automobile in spring' }]);
      await kit.api.post(`/api/v1/data/${household}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
      await kit.api.post(`/api/v1/data/${garage}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
      // Another tenant holds a record nearer to the query than any of ours: the query's own word.
      stranger = await kit.createTenant();
      strangerTable = await createTable(stranger.api, 'Garage', [{ name: 'task', data_type: 'text' }]);
      [strangerRecord] = await addRecords(stranger.api, strangerTable, [{ task: 'Vehicle' }]);
      await waitForEmbeddings(garage);
      await waitForEmbeddings(strangerTable);
    });

    it('agent knowledge search ranks the agent’s tables together by vector similarity too', async () => {
      expect(await lexical(kit.tenant.uuid, [household, garage], 'vehicle')).toEqual({ exact: [], fuzzy: [] });
      const res = await kit.api.post(`/api/v1/agents/${agent}/knowledge/search`).send({ query: 'vehicle' }).expect(200);
      const hits: Hit[] = res.body.data.items;
      expect(hits[0]).toMatchObject({ table_uuid: garage, table_name: 'Garage', record_uuid: serviced });
      // Of the household's records, the vector list ranks them all; the garage's comes first.
      expect(new Set(hits.map((hit) => hit.table_uuid))).toEqual(new Set([garage, household]));
      const couch = await kit.api.post(`/api/v1/agents/${agent}/knowledge/search`).send({ query: 'couch', mode: 'knowledge_base' }).expect(200);
      expect(couch.body.data.items[0]).toMatchObject({ table_uuid: household, record_uuid: records.sofa });
    });

    it('never answers another tenant’s records, however near', async () => {
      // The stranger's record is embedded and found in its own tenant.
      expect((await searchTable(stranger.api, strangerTable, 'automobile'))[0].record_uuid).toBe(strangerRecord);
      const agentHits: Hit[] = (await kit.api.post(`/api/v1/agents/${agent}/knowledge/search`).send({ query: 'vehicle' }).expect(200)).body.data.items;
      const tableHits = await searchTable(kit.api, garage, 'vehicle');
      expect([...agentHits, ...tableHits].map((hit) => hit.record_uuid)).not.toContain(strangerRecord);
      await stranger.api.post(`/api/v1/data/${garage}/search`).send({ query: 'vehicle' }).expect(404);
      await stranger.api.post(`/api/v1/agents/${agent}/knowledge/search`).send({ query: 'vehicle' }).expect(404);
      // The vector statement's own tenant condition holds even when handed another tenant's table.
      expect(await nearest(kit.tenant.uuid, [strangerTable], 'vehicle')).toEqual([]);
    });
  });
});

interface VectorRow {
  uuid: string;
  tenant_uuid: string;
  model: string;
  document_md5: string;
  embedding: number[];
}

async function vectorsOf(table: string): Promise<VectorRow[]> {
  const rows = await sql<Omit<VectorRow, 'embedding'> & { embedding: string }>(
    kit,
    'select uuid::text as uuid, tenant_uuid::text as tenant_uuid, model, document_md5, embedding::text as embedding from data_table_search_vectors where table_uuid = ? order by uuid',
    [table],
  );
  // pgvector's text form is a JSON array.
  return rows.map((row) => ({ ...row, embedding: JSON.parse(row.embedding) as number[] }));
}

/** Waits until every record of the table has an entry and a vector of the model for the entry's current document. */
async function waitForEmbeddings(table: string): Promise<void> {
  await until(async () => {
    const [counts] = await sql<{ records: number; entries: number; embedded: number }>(
      kit,
      `select (select count(*)::int from data_table_records where table_uuid = ?) as records,
        (select count(*)::int from data_table_search_entries where table_uuid = ?) as entries,
        (select count(*)::int from data_table_search_entries e
          join data_table_search_vectors v on v.uuid = e.uuid and v.model = ? and v.document_md5 = md5(e.document)
          where e.table_uuid = ?) as embedded`,
      [table, table, MODEL, table],
    );
    return counts.records > 0 && counts.entries === counts.records && counts.embedded === counts.records;
  }, `the records of table ${table} to be embedded`);
}

/** The full-text and fuzzy lists of the search, alone, in a transaction as the search route runs them. */
async function lexical(tenant: string, tables: string[], query: string): Promise<{ exact: string[]; fuzzy: string[] }> {
  const { exact, fuzzy } = await kit.kernel.orm.em.fork().transactional((em: EntityManager) => lexicalLists(em, tenant, tables, query));
  return { exact, fuzzy };
}

/** The vector list of the search, alone: the query's concept vector against the stored ones. */
function nearest(tenant: string, tables: string[], query: string): Promise<string[]> {
  return new VectorStore().nearest(kit.kernel.orm.em.fork(), tenant, tables, MODEL, conceptVector(query), LIST_DEPTH);
}

function md5(text: string): string {
  return crypto.createHash('md5').update(text).digest('hex');
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
