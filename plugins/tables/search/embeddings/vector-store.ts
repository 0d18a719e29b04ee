import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../../../core';
import { uuidArray } from '../sql-values';
import { dims, VectorIndex } from './vector-index';

/** Longest document sent to the embeddings API: past a model's context it would be refused, and the start says what a record is about. */
const DOCUMENT_MAX = 8000;

export interface PendingDocument {
  uuid: string;
  document: string;
  md5: string;
}

/**
 * Record embeddings in `data_table_search_vectors`, a table that exists only where the
 * database has pgvector (migration 0002). Raw SQL, each statement naming the tenant.
 */
export class VectorStore {
  private present: Promise<boolean> | undefined;
  private readonly index = new VectorIndex();
  /** Indexes that could not be made (reported once; search stays exact for them). */
  private readonly unindexed = new Set<string>();

  constructor(private readonly logger?: Logger) {}

  /** Whether this database has the vectors table; asked once per process. */
  available(em: EntityManager): Promise<boolean> {
    this.present ??= em
      .getConnection()
      .execute(`select to_regclass('data_table_search_vectors') is not null as present`, [], 'all', em.getTransactionContext())
      .then((rows) => rows[0]?.present === true)
      .catch((error: unknown) => {
        this.present = undefined;
        throw error;
      });
    return this.present;
  }

  /**
   * Entries of the tables nearest to the embedding (cosine distance), best first. Only
   * embeddings of an entry's current document count: the vector of a record's old text
   * (changed, its new embedding not stored yet) would find it by what it no longer says.
   * `excluding` (websearch text, '' for nothing) leaves out the entries that match it, as
   * the lexical lists do for a query's -exclusions. Both are applied to the nearest
   * `limit` rather than before ranking, which would read every entry's document on
   * every search: the list is shorter while a changed record waits for its embedding,
   * or when the query excludes some of the nearest.
   */
  async nearest(
    em: EntityManager,
    tenantUuid: string,
    tableUuids: readonly string[],
    model: string,
    embedding: readonly number[],
    limit: number,
    excluding = '',
  ): Promise<string[]> {
    const exclusion = excluding
      ? 'join data_tables t on t.uuid = e.table_uuid where not coalesce(e.tsv @@ websearch_to_tsquery(t.search_language::regconfig, ?), false) '
      : '';
    // The model's vectors of this length, ordered on the expression of their index (vector-index.ts); a vector of
    // another length cannot be compared with the query's anyway. The outer order restores what an iterative scan relaxed.
    const length = dims(embedding.length);
    const select = (tx: EntityManager) =>
      tx.getConnection().execute<Array<{ key: string }>>(
        'select n.uuid::text as key from (' +
          `select v.uuid, v.document_md5, v.embedding::vector(${length}) <=> ?::vector(${length}) as distance from data_table_search_vectors v ` +
          `where v.model = ? and vector_dims(v.embedding) = ${length} and v.tenant_uuid = ? and v.table_uuid = any(?::uuid[]) ` +
          'order by distance limit ?' +
          ') n join data_table_search_entries e on e.uuid = n.uuid and md5(e.document) = n.document_md5 ' +
          exclusion +
          'order by n.distance, n.uuid',
        [JSON.stringify(embedding), model, tenantUuid, uuidArray(tableUuids), limit, ...(excluding ? [excluding] : [])],
        'all',
        tx.getTransactionContext(),
      );
    if (!(await this.index.supported(em))) return (await select(em)).map((row) => row.key);
    // An index scan goes on until `limit` rows pass the tenant and table conditions; set for this transaction only.
    const rows = await em.transactional(async (tx) => {
      await tx.getConnection().execute(`select set_config('hnsw.iterative_scan', 'relaxed_order', true)`, [], 'all', tx.getTransactionContext());
      return select(tx);
    });
    return rows.map((row) => row.key);
  }

  /** Entries of the table without an embedding of this model for their current document. */
  async pending(em: EntityManager, tenantUuid: string, tableUuid: string, model: string, limit: number): Promise<PendingDocument[]> {
    return em.getConnection().execute(
      'select e.uuid::text as uuid, left(e.document, ?) as document, md5(e.document) as md5 from data_table_search_entries e ' +
        'left join data_table_search_vectors v on v.uuid = e.uuid and v.model = ? and v.document_md5 = md5(e.document) ' +
        'where e.tenant_uuid = ? and e.table_uuid = ? and v.uuid is null order by e.uuid limit ?',
      [DOCUMENT_MAX, model, tenantUuid, tableUuid, limit],
      'all',
      em.getTransactionContext(),
    );
  }

  /** Stores embeddings of documents; one whose entry changed or went meanwhile is skipped (a later run embeds the new text). */
  async store(em: EntityManager, tenantUuid: string, tableUuid: string, model: string, items: ReadonlyArray<{ uuid: string; md5: string; embedding: readonly number[] }>): Promise<void> {
    if (items.length === 0) return;
    for (const length of new Set(items.map((item) => item.embedding.length))) await this.ensureIndex(em, model, length);
    await em.getConnection().execute(
      'insert into data_table_search_vectors as v (uuid, tenant_uuid, table_uuid, created_at, updated_at, model, document_md5, embedding) ' +
        'select x.uuid, e.tenant_uuid, e.table_uuid, now(), now(), ?, x.md5, x.embedding::vector ' +
        'from jsonb_to_recordset(?::jsonb) as x(uuid uuid, md5 text, embedding text) ' +
        'join data_table_search_entries e on e.uuid = x.uuid and e.tenant_uuid = ? and e.table_uuid = ? and md5(e.document) = x.md5 ' +
        'on conflict (uuid) do update set model = excluded.model, document_md5 = excluded.document_md5, embedding = excluded.embedding, updated_at = excluded.updated_at',
      [model, JSON.stringify(items.map((item) => ({ uuid: item.uuid, md5: item.md5, embedding: JSON.stringify(item.embedding) }))), tenantUuid, tableUuid],
      'run',
      em.getTransactionContext(),
    );
  }

  /**
   * The nearest-neighbour index of the model and length (vector-index.ts), in a savepoint:
   * an index that cannot be made (more dimensions than HNSW takes, a role that may not)
   * leaves search exact, and must not fail the job that stores the vectors.
   */
  private async ensureIndex(em: EntityManager, model: string, length: number): Promise<void> {
    const key = `${model}\n${length}`;
    if (this.unindexed.has(key)) return;
    try {
      await em.transactional((tx) => this.index.ensure(tx, model, length));
    } catch (error) {
      this.unindexed.add(key);
      this.logger?.warn('no nearest-neighbour index for these embeddings; vector search reads every vector of a table', {
        model,
        dimensions: length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
