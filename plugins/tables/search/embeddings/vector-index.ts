import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Approximate nearest-neighbour indexes (HNSW) over `data_table_search_vectors`, one
 * per embeddings model and dimension count. Without one, every search computes the
 * distance to every vector of the searched tables: at 100k records of a 1536-dimension
 * model that is about 600 MB read per query.
 *
 * The column is a plain `vector` (any model, any length), and pgvector indexes only a
 * fixed length, so each index is a partial expression index:
 *
 *   using hnsw ((embedding::vector(1536)) vector_cosine_ops)
 *   where model = '<model>' and vector_dims(embedding) = 1536
 *
 * which `nearest` matches by ordering on the same expression under the same
 * conditions. An index is made the first time the embed job stores vectors of a model
 * and length, in the job's transaction (a short build then; over vectors stored before
 * this existed, writes to the vectors table wait for the build, searches do not).
 *
 * Only with pgvector 0.8 or later: its iterative index scans keep going until enough
 * rows pass the tenant and table conditions, where an older HNSW scan stops after
 * `hnsw.ef_search` candidates (40) and would return few or none of a small table's
 * records. Older versions search without the index, exactly, as before.
 */
export class VectorIndex {
  private iterative: Promise<boolean> | undefined;
  private readonly made = new Set<string>();

  /** Whether the database's pgvector scans an index iteratively (0.8+); asked once per process. */
  supported(em: EntityManager): Promise<boolean> {
    this.iterative ??= em
      .getConnection()
      .execute(`select extversion from pg_extension where extname = 'vector'`, [], 'all', em.getTransactionContext())
      .then((rows) => atLeast(String(rows[0]?.extversion ?? '0'), [0, 8, 0]))
      .catch((error: unknown) => {
        this.iterative = undefined;
        throw error;
      });
    return this.iterative;
  }

  /** Makes the index of this model and length unless it exists (in `em`'s transaction). */
  async ensure(em: EntityManager, model: string, dimensions: number): Promise<void> {
    const name = vectorIndexName(model, dimensions);
    if (this.made.has(name) || !(await this.supported(em))) return;
    const connection = em.getConnection();
    const ctx = em.getTransactionContext();
    // Two jobs storing the first vectors of a model at once: the second waits, then finds the index.
    await connection.execute('select pg_advisory_xact_lock(hashtext(?))', [name], 'all', ctx);
    await connection.execute(
      `create index if not exists "${name}" on data_table_search_vectors using hnsw ((embedding::vector(${dims(dimensions)})) vector_cosine_ops) ` +
        `where model = ${quoteLiteral(model)} and vector_dims(embedding) = ${dims(dimensions)}`,
      [],
      'run',
      ctx,
    );
    this.made.add(name);
  }
}

/** `data_table_search_vectors_hnsw_<hash of model and length>`: within PostgreSQL's 63 bytes whatever the model's name. */
export function vectorIndexName(model: string, dimensions: number): string {
  return `data_table_search_vectors_hnsw_${createHash('sha256').update(`${model}\n${dims(dimensions)}`).digest('hex').slice(0, 16)}`;
}

/** A vector length as SQL text: a positive integer pgvector can index (it refuses more than 2,000 dimensions for HNSW over `vector`). */
export function dims(dimensions: number): number {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new Error(`not a vector length: ${dimensions}`);
  return dimensions;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function atLeast(version: string, wanted: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let index = 0; index < wanted.length; index++) {
    if ((parts[index] ?? 0) !== wanted[index]) return (parts[index] ?? 0) > wanted[index];
  }
  return true;
}
