import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../../core';
import { TableColumn } from '../entities';
import type { KnowledgeHit } from '../knowledge-search';
import { recordJson } from '../model/record-view';
import { QUERY_TIMEOUT_MS, type EmbeddingsClient } from './embeddings/embeddings-client';
import type { VectorStore } from './embeddings/vector-store';
import { LIST_DEPTH, lexicalLists, splitExclusions } from './lexical-lists';
import { fuseRanks } from './rank-fusion';
import { MATCH_END, MATCH_START, snippetHtml } from './snippet';
import { named, uuidArray } from './sql-values';

/**
 * The fuzzy list is a net for typos and partial matches: it counts half, so a record
 * holding every word as typed (the full-text list) ranks above one found only through
 * a near spelling or some of the words, and of two records both lists found, the one
 * whose words stand closer together wins.
 */
const FUZZY_WEIGHT = 0.5;

/** A table to search, of the tenant searched. */
export interface SearchTarget {
  uuid: string;
  name: string;
}

/** Vector similarity, where embeddings are configured and the database has pgvector. */
export interface HybridSearch {
  client: EmbeddingsClient;
  store: VectorStore;
}

/**
 * The hits themselves: the records' values and a headline of their documents in which
 * the query's words, and the spellings the fuzzy list used, are marked. Only records
 * with an entry are found, so hits and lists agree. Records and entries are reached
 * through the tenant's tables: a tenant condition of their own would tempt the planner
 * to scan all the tenant's records when its statistics lag behind a big import
 * (measured: 30 ms instead of 1). `:highlight` is jsonb: the words to mark by table, as
 * tsquery texts.
 */
const HITS = named<'records' | 'tenant' | 'query' | 'highlight'>(`
  select r.uuid::text as uuid, r.table_uuid::text as table_uuid, r."values", r.created_at, r.updated_at,
    ts_headline(
      t.search_language::regconfig,
      translate(e.document, chr(${MATCH_START.charCodeAt(0)}) || chr(${MATCH_END.charCodeAt(0)}), ''),
      coalesce((:highlight::jsonb ->> t.uuid::text)::tsquery, websearch_to_tsquery(t.search_language::regconfig, :query)),
      'StartSel=' || chr(${MATCH_START.charCodeAt(0)}) || ', StopSel=' || chr(${MATCH_END.charCodeAt(0)}) || ', MaxWords=35, MinWords=15, ShortWord=2'
    ) as headline
  from data_tables t
  join data_table_records r on r.table_uuid = t.uuid
  join data_table_search_entries e on e.uuid = r.uuid and e.table_uuid = t.uuid
  where t.tenant_uuid = :tenant and r.uuid = any(:records::uuid[])`);

interface HitRow {
  uuid: string;
  table_uuid: string;
  values: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  headline: string;
}

/**
 * Ranked search over some tables of one tenant: the full-text and fuzzy lists (and the
 * vector list, when hybrid) fused by reciprocal rank fusion. A table whose index is
 * stale answers from the entries it has.
 *
 * Runs in `em`'s transaction when it has one. Otherwise (the search routes) it opens
 * two short ones, the lexical lists and then the vector list with the hits, and none
 * while it waits for the query's embedding: a slow embeddings API (up to
 * QUERY_TIMEOUT_MS) then holds no connection of the pool, where one transaction would
 * hold it for every search under way.
 */
export class TableSearch {
  constructor(
    private readonly hybrid: HybridSearch | null,
    private readonly logger?: Logger,
  ) {}

  async search(em: EntityManager, tenantUuid: string, targets: readonly SearchTarget[], query: string, limit: number): Promise<KnowledgeHit[]> {
    const text = query.trim();
    if (targets.length === 0 || text === '') return [];
    const tableUuids = targets.map((target) => target.uuid);
    // What the query asks for is embedded, not its -exclusions (an excluded word would draw its records nearer); they filter the vector list instead.
    const { wanted, unwanted } = splitExclusions(text);
    const asked = wanted.trim();
    // The query's embedding is fetched while the database ranks the lexical lists.
    const embedding = asked && this.hybrid && (await this.hybrid.store.available(em)) ? this.embed(this.hybrid.client, asked) : null;
    const lexical = await inTransaction(em, (tx) => lexicalLists(tx, tenantUuid, tableUuids, text));
    const vector = embedding ? await embedding : null;
    return inTransaction(em, async (tx) => {
      const semantic = vector && this.hybrid ? await this.hybrid.store.nearest(tx, tenantUuid, tableUuids, this.hybrid.client.model, vector, LIST_DEPTH, unwanted) : [];
      const fused = fuseRanks([{ keys: lexical.exact }, { keys: lexical.fuzzy, weight: FUZZY_WEIGHT }, { keys: semantic }]).slice(0, limit);
      return fused.length === 0 ? [] : this.hits(tx, tenantUuid, targets, text, fused, lexical.highlight);
    });
  }

  /** The fused items as hits: the records' values and their documents' headlines, in the fused order. */
  private async hits(
    em: EntityManager,
    tenantUuid: string,
    targets: readonly SearchTarget[],
    text: string,
    fused: ReadonlyArray<{ key: string; score: number }>,
    highlight: ReadonlyMap<string, string>,
  ): Promise<KnowledgeHit[]> {
    const connection = em.getConnection();
    const rows: HitRow[] = await connection.execute(
      HITS.text,
      HITS.params({ records: uuidArray(fused.map((item) => item.key)), tenant: tenantUuid, query: text, highlight: JSON.stringify(Object.fromEntries(highlight)) }),
      'all',
      em.getTransactionContext(),
    );
    const byUuid = new Map(rows.map((row) => [row.uuid, row]));
    const columns = await em.find(TableColumn, { tableUuid: { $in: [...new Set(rows.map((row) => row.table_uuid))] } }, { orderBy: { ord: 'asc' } });
    const names = new Map(targets.map((target) => [target.uuid, target.name]));
    const hits: KnowledgeHit[] = [];
    for (const { key, score } of fused) {
      const row = byUuid.get(key);
      if (!row) continue;
      const record = recordJson(
        columns.filter((column) => column.tableUuid === row.table_uuid),
        { uuid: row.uuid, tableUuid: row.table_uuid, values: row.values, createdAt: row.created_at, updatedAt: row.updated_at },
      );
      hits.push({ table_uuid: row.table_uuid, table_name: names.get(row.table_uuid) ?? '', record_uuid: row.uuid, score, values: record.values, snippet: snippetHtml(row.headline) });
    }
    return hits;
  }

  /** The query's embedding, or null when the embeddings API fails (search goes on without it). */
  private embed(client: EmbeddingsClient, text: string): Promise<number[] | null> {
    return client.embed([text], { timeoutMs: QUERY_TIMEOUT_MS }).then(
      ([vector]) => vector,
      (error: unknown) => {
        this.logger?.warn('query embedding failed; searching without vector similarity', { error: error instanceof Error ? error.message : String(error) });
        return null;
      },
    );
  }
}

/** Runs `work` in `em`'s transaction, or in a transaction of its own when `em` has none. */
function inTransaction<T>(em: EntityManager, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.getTransactionContext() ? work(em) : em.transactional(work);
}
