import type { EntityManager } from '@mikro-orm/postgresql';

export const NOT_A_SEARCH_LANGUAGE = 'is not a text search configuration of this database (english, german, french, spanish, simple, ...)';

/**
 * Whether the database has this text search configuration. The search index passes the
 * table's language to `to_tsvector(<language>, ...)`, which would fail on every later
 * write if the name were not checked when it is set.
 */
export async function isSearchLanguage(em: EntityManager, language: string): Promise<boolean> {
  const rows = await em.getConnection().execute('select 1 from pg_catalog.pg_ts_config where cfgname = ?', [language], 'all', em.getTransactionContext());
  return rows.length > 0;
}
