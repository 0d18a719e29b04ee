import { named } from './sql-values';

/**
 * The SQL that builds a table's search index from its records: an entry per record
 * (`document`: the record's values, `tsv`: its full-text vector) and the table's
 * vocabulary (the words search corrects typos against). Each statement names the
 * tenant; each builds what it writes inside the database, in one statement, so a
 * 100k-record sync moves no rows through Node.
 */

/**
 * A record's document: the values of the table's current columns, in column order,
 * as text (numbers, dates and booleans as written, json as its JSON text), empty cells
 * left out. No column names: a query for "price" should not match every record.
 * Expects `r` (the record) and `source.keys` (the column keys in order).
 */
const DOCUMENT = `array_to_string(array(select r."values" ->> k.key from unnest(source.keys) with ordinality as k(key, n) order by k.n), ' | ')`;

/**
 * The table's text search configuration and its column keys in order. No row when the
 * table is not the tenant's, so nothing is written.
 */
const SOURCE = `
  source as materialized (
    select t.uuid as table_uuid, t.search_language::regconfig as language,
      coalesce((select array_agg(c.key order by c.ord) from data_table_columns c where c.tenant_uuid = :tenant and c.table_uuid = :table), '{}') as keys
    from data_tables t
    where t.tenant_uuid = :tenant and t.uuid = :table
  )`;

/**
 * The words of a text as written: lower-cased, not stemmed. Typos are made in written
 * words, and a stem such as `opn` (of "opning") is too far from `open` to be recognised.
 */
export const WORDS_OF = (text: string) => `unnest(tsvector_to_array(to_tsvector('simple', ${text})))`;

/**
 * Which of them join a table's vocabulary: letters only, 3 to 40 long. Numbers, dates,
 * urls and e-mail addresses match exactly or not at all; a trigram of a two-letter word
 * says nothing.
 */
export const VOCABULARY_WORD = (column: string) => `length(${column}) between 3 and 40 and ${column} !~ '[[:digit:][:punct:]]'`;

/**
 * Rebuilds the entries of some records (just written, so their writer holds them) and
 * adds their new words to the vocabulary (a sync recounts it). An entry's `updated_at`
 * is its record's: the version of the record it was built from. The records are
 * reached through the tenant's table (`source`), not by a tenant condition of their
 * own, which the planner would be tempted to scan the tenant's records by when its
 * statistics lag behind a big import. `:records` is a PostgreSQL array literal (uuidArray).
 */
export const REFRESH_RECORDS = named<'tenant' | 'table' | 'records'>(`
  with ${SOURCE},
  written as (
    insert into data_table_search_entries as e (uuid, tenant_uuid, created_at, updated_at, table_uuid, document, tsv)
    select d.uuid, :tenant, now(), d.updated_at, :table, d.document, to_tsvector(source.language, d.document)
    from source, lateral (
      select r.uuid, r.updated_at, ${DOCUMENT} as document
      from data_table_records r
      where r.uuid = any(:records::uuid[]) and r.table_uuid = source.table_uuid
    ) d
    on conflict (uuid) do update set document = excluded.document, tsv = excluded.tsv, updated_at = excluded.updated_at
    returning e.document
  )
  insert into data_table_search_words (uuid, tenant_uuid, created_at, updated_at, table_uuid, word)
  select gen_random_uuid(), :tenant, now(), now(), :table, l.word
  from (select distinct ${WORDS_OF('written.document')} as word from written) l
  where ${VOCABULARY_WORD('l.word')}
  on conflict (table_uuid, word) do nothing`);

/**
 * Brings every entry of a table in line with its records: drops the entries of records
 * that are gone, and writes only the entries whose document or vector would change (a
 * new language changes every vector). Rewriting an unchanged entry would cost the GIN
 * index updates that dominate a sync of new records. An entry that a write made
 * meanwhile from a newer version of its record (a later `updated_at`) is left alone.
 */
export const SYNC_ENTRIES = named<'tenant' | 'table'>(`
  with ${SOURCE},
  gone as (
    delete from data_table_search_entries e
    where e.tenant_uuid = :tenant and e.table_uuid = :table
      and not exists (select 1 from data_table_records r where r.uuid = e.uuid and r.tenant_uuid = :tenant and r.table_uuid = :table)
  ),
  fresh as (
    select d.uuid, d.updated_at, d.document, to_tsvector(source.language, d.document) as tsv
    from source, lateral (
      select r.uuid, r.updated_at, ${DOCUMENT} as document
      from data_table_records r
      where r.tenant_uuid = :tenant and r.table_uuid = :table
    ) d
  )
  insert into data_table_search_entries as e (uuid, tenant_uuid, created_at, updated_at, table_uuid, document, tsv)
  select f.uuid, :tenant, now(), f.updated_at, :table, f.document, f.tsv
  from fresh f
  left join data_table_search_entries old on old.uuid = f.uuid
  where old.uuid is null or old.document is distinct from f.document or old.tsv is distinct from f.tsv
  on conflict (uuid) do update set document = excluded.document, tsv = excluded.tsv, updated_at = excluded.updated_at
    where e.updated_at <= excluded.updated_at`);

/**
 * Rebuilds a table's vocabulary from its entries, with each word's entry count; words
 * no entry holds any more go.
 */
export const SYNC_VOCABULARY = named<'tenant' | 'table'>(`
  with counted as (
    select l.word, count(*)::int as ndoc
    from data_table_search_entries e, ${WORDS_OF('e.document')} as l(word)
    where e.tenant_uuid = :tenant and e.table_uuid = :table and ${VOCABULARY_WORD('l.word')}
    group by l.word
  ),
  gone as (
    delete from data_table_search_words w
    where w.tenant_uuid = :tenant and w.table_uuid = :table and not exists (select 1 from counted c where c.word = w.word)
  )
  insert into data_table_search_words as w (uuid, tenant_uuid, created_at, updated_at, table_uuid, word, ndoc)
  select gen_random_uuid(), :tenant, now(), now(), :table, c.word, c.ndoc
  from counted c
  on conflict (table_uuid, word) do update set ndoc = excluded.ndoc, updated_at = excluded.updated_at
    where w.ndoc <> excluded.ndoc`);

export const MARK_CURRENT = named<'tenant' | 'table'>(`update data_tables set index_status = 'current', indexed_at = now() where tenant_uuid = :tenant and uuid = :table`);
