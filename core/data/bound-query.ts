import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Kysely } from 'kysely';
import type { PreparedStatement } from './prepared-statements';
import { ormPool } from './orm-pool';
import { rowLevelSecurityOf, withCurrentTenant } from './row-level-security';

/**
 * Runs SQL with `$1, $2, ...` placeholders as bound parameters, in the EntityManager's
 * transaction when it has one (else on the pool). MikroORM's `execute` writes every
 * parameter into the statement as an escaped literal; for a statement carrying thousands
 * of values (a bulk write's JSON recordset, a lookup's array of keys) that escaping, and
 * the server parsing the literal text, cost more than the work itself. Here the values
 * travel apart from the text, as PostgreSQL's extended protocol sends them: a JS array
 * binds as an array (`= any($1::text[])`), a Date as a timestamp, a string as text.
 * The statement is logged through the ORM's query logger like its own. A declared
 * PreparedStatement runs as a named prepared statement (see prepared-statements.ts).
 * Outside a transaction the statement goes to the ORM's pool directly (orm-pool.ts).
 */
export async function boundQuery<T = Record<string, unknown>>(em: EntityManager, statement: string | PreparedStatement, params: readonly unknown[] = []): Promise<T[]> {
  const text = typeof statement === 'string' ? statement : statement.text;
  const transaction = em.getTransactionContext<Kysely<unknown>>();
  const pool = transaction ? undefined : ormPool(em);
  const logger = em.config.getLogger();
  const started = Date.now();
  try {
    const { rows } = pool
      ? await pool.query(rowLevelSecurityOf(em) ? withCurrentTenant(text) : text, params as unknown[])
      : await (transaction ?? (em.getConnection().getClient() as Kysely<unknown>)).executeQuery<T>(CompiledQuery.raw(text, [...params]));
    logger.logQuery({ query: text, took: Date.now() - started, results: rows.length, level: 'info' });
    return rows;
  } catch (error) {
    logger.logQuery({ query: text, took: Date.now() - started, level: 'error' });
    throw error;
  }
}
