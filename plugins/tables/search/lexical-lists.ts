import type { EntityManager } from '@mikro-orm/postgresql';
import { VOCABULARY_WORD, WORDS_OF } from './index-statements';
import { named, uuidArray } from './sql-values';

/** Most entries one list ranks: a query whose words are in most records stays fast, ranking a sample of them. */
const RANKED_CANDIDATES = 1000;
/** How deep each list goes into the fusion. */
export const LIST_DEPTH = 50;
/** Spellings of the vocabulary tried for each query word (the word itself, when the table has it, among them). */
const SPELLINGS_PER_WORD = 3;
/**
 * Trigram similarity a vocabulary word needs to count as a spelling of a query word.
 * pg_trgm's default (0.3) misses the commonest typo: two letters swapped in a six-letter
 * word ("ketlte" and "kettle" score 0.27).
 */
const SPELLING_SIMILARITY = 0.2;
/**
 * The fuzzy list fetches its candidates by the rarest spellings, adding spellings while
 * their entry counts stay within this (the rarest always): a word in half the records
 * says little about which record is meant, and fetching them all would cost most.
 */
const FETCH_BUDGET = 1000;

/**
 * An OR query of the distinct lexemes of some words, in a text search configuration:
 * refund, refunds and refunded are one `'refund'`, stop words drop out (null when none
 * is left). The words are letters only (vocabulary words), so their lexemes need no escaping.
 */
const anyOf = (language: string, words: string) =>
  `(select string_agg(quote_literal(l.lexeme), ' | ')::tsquery from unnest(tsvector_to_array(to_tsvector(${language}, ${words}))) as l(lexeme))`;

/**
 * Two ranked lists over the entries of some tables of one tenant, in one statement:
 *
 * - `exact`: full-text search as the user wrote it (`websearch_to_tsquery` in each
 *   table's language: stemming, stop words, "quoted phrases", -exclusions), ranked by
 *   cover density (`ts_rank_cd`), so the words close together (a phrase) rank first;
 * - `fuzzy`: forgives typos and partial matches. Each query word is looked up in the
 *   table's vocabulary by trigram similarity (`word % 'refnd'` finds `refund`); the
 *   spellings found are searched as full-text words (stemmed in the table's language),
 *   and the entries holding any of them are ranked by how many of the query's words
 *   they hold, then by cover density. Stop words of the table's language (for, the)
 *   are not looked up: they would only bring near spellings of themselves. When the
 *   spellings to fetch by are just the query's own words (one word, no near spelling
 *   in the table), the full-text list's candidates are ranked again instead of being
 *   fetched a second time.
 *
 * Entries are reached through the tenant's tables (`targets` names the tenant; an entry
 * belongs to its table's tenant), with no condition on the entries' own tenant_uuid:
 * given one, the planner also scans the tenant index, every entry of the tenant, for
 * nothing (measured: a few ms per 100k entries, per list). `highlight` is, per table, an OR query
 * of the query's own lexemes and of the spellings used, for marking the matched words
 * (ts_headline marks them better from one flat OR query of distinct lexemes).
 * `:wanted` and `:unwanted` are the query without its exclusions and the exclusions (splitExclusions).
 */
const LISTS = named<'query' | 'wanted' | 'unwanted' | 'tenant' | 'tables'>(`
  with targets as materialized (
    select t.uuid as table_uuid, t.search_language::regconfig as language,
      websearch_to_tsquery(t.search_language::regconfig, :query) as exact_query,
      case when :unwanted = '' then null else websearch_to_tsquery(t.search_language::regconfig, :unwanted) end as excluded_query
    from data_tables t
    where t.uuid = any(:tables::uuid[]) and t.tenant_uuid = :tenant
  ),
  exact_candidates as materialized (
    select e.uuid, e.table_uuid, e.tsv, tg.exact_query
    from targets tg join data_table_search_entries e on e.table_uuid = tg.table_uuid and e.tsv @@ tg.exact_query
    limit ${RANKED_CANDIDATES}
  ),
  exact_list as (
    select uuid, row_number() over (order by ts_rank_cd(tsv, exact_query) desc, uuid) as position from exact_candidates
  ),
  asked as (
    select distinct w.word from ${WORDS_OF(':wanted')} as w(word) where ${VOCABULARY_WORD('w.word')}
  ),
  spellings as (
    select tg.table_uuid, tg.language, a.word as asked, s.word, s.ndoc
    from targets tg
    join asked a on length(to_tsvector(tg.language, a.word)) > 0
    cross join lateral (
      select v.word, v.ndoc from data_table_search_words v
      where v.table_uuid = tg.table_uuid and v.word % a.word
      order by similarity(v.word, a.word) desc, v.ndoc desc, v.word
      limit ${SPELLINGS_PER_WORD}
    ) s
  ),
  budgeted as (
    select s.*, (sum(s.ndoc) over rarest_first <= ${FETCH_BUDGET} or row_number() over rarest_first = 1) as fetch
    from spellings s
    window rarest_first as (partition by s.table_uuid order by s.ndoc, s.word, s.asked rows unbounded preceding)
  ),
  alternatives as (
    select table_uuid, language, asked, string_agg(word, ' ') as words from budgeted group by table_uuid, language, asked
  ),
  fuzzy_queries as materialized (
    select a.table_uuid,
      ${anyOf('a.language', "string_agg(a.words, ' ')")} as any_query,
      array_agg(a.per_word) as per_word,
      (select ${anyOf('a.language', "string_agg(b.word, ' ')")} from budgeted b where b.table_uuid = a.table_uuid and b.fetch) as fetch_query
    from (select alternatives.*, ${anyOf('alternatives.language', 'alternatives.words')} as per_word from alternatives) a
    group by a.table_uuid, a.language
  ),
  fuzzy_candidates as (
    (
      select e.uuid, e.tsv, fq.any_query, fq.per_word
      from fuzzy_queries fq
      join targets tg on tg.table_uuid = fq.table_uuid
      join data_table_search_entries e on e.table_uuid = fq.table_uuid and e.tsv @@ fq.fetch_query
      where fq.fetch_query is distinct from tg.exact_query and not coalesce(e.tsv @@ tg.excluded_query, false)
      limit ${RANKED_CANDIDATES}
    )
    union all
    select c.uuid, c.tsv, fq.any_query, fq.per_word
    from fuzzy_queries fq
    join targets tg on tg.table_uuid = fq.table_uuid
    join exact_candidates c on c.table_uuid = fq.table_uuid
    where fq.fetch_query = tg.exact_query
  ),
  fuzzy_list as (
    select uuid, row_number() over (
      order by (select count(*) from unnest(per_word) as q where tsv @@ q) desc, ts_rank_cd(tsv, any_query) desc, uuid
    ) as position
    from fuzzy_candidates
  ),
  highlights as (
    select tg.table_uuid, (
      select string_agg(quote_literal(l.lexeme), ' | ')
      from unnest(tsvector_to_array(
        to_tsvector(tg.language, :wanted) ||
        to_tsvector(tg.language, coalesce((select string_agg(b.word, ' ') from budgeted b where b.table_uuid = tg.table_uuid), ''))
      )) as l(lexeme)
      where l.lexeme !~ '[''\\\\]'
    ) as query_text
    from targets tg
  )
  select 'exact' as list, uuid::text as key, position from exact_list where position <= ${LIST_DEPTH}
  union all
  select 'fuzzy', uuid::text, position from fuzzy_list where position <= ${LIST_DEPTH}
  union all
  select 'highlight:' || table_uuid::text, query_text, null from highlights where query_text is not null`);

export interface LexicalLists {
  /** Entry (record) uuids, best first. */
  exact: string[];
  fuzzy: string[];
  /** Per table, the words to mark in snippets (tsquery text): the query's and their corrected spellings. */
  highlight: Map<string, string>;
}

/**
 * Splits off the exclusions of websearch syntax (`-word`, `-"a phrase"`, a minus at the
 * start of a word), so the fuzzy list looks up spellings of the wanted words only and
 * leaves out what the query excludes. `unwanted` is websearch text (`word or "a phrase"`).
 */
export function splitExclusions(query: string): { wanted: string; unwanted: string } {
  const excluded: string[] = [];
  const wanted = query.replace(/(^|\s)-("[^"]*"?|[^\s"]+)/g, (_match, space: string, term: string) => {
    excluded.push(term.startsWith('"') ? `"${term.replace(/"/g, '')}"` : term);
    return space;
  });
  return { wanted, unwanted: excluded.join(' or ') };
}

export async function lexicalLists(em: EntityManager, tenantUuid: string, tableUuids: readonly string[], query: string): Promise<LexicalLists> {
  const { wanted, unwanted } = splitExclusions(query);
  const connection = em.getConnection();
  const ctx = em.getTransactionContext();
  // For the rest of the transaction (the `%` operator and its index read it); outside one it has no effect and the default applies.
  await connection.execute(`select set_config('pg_trgm.similarity_threshold', ?, true)`, [String(SPELLING_SIMILARITY)], 'all', ctx);
  const rows: Array<{ list: string; key: string; position: string | number | null }> = await connection.execute(
    LISTS.text,
    LISTS.params({ query, wanted, unwanted, tenant: tenantUuid, tables: uuidArray(tableUuids) }),
    'all',
    ctx,
  );
  const ranked = (list: string) =>
    rows
      .filter((row) => row.list === list)
      .sort((a, b) => Number(a.position) - Number(b.position))
      .map((row) => row.key);
  const highlight = new Map<string, string>();
  for (const row of rows) if (row.list.startsWith('highlight:')) highlight.set(row.list.slice('highlight:'.length), row.key);
  return { exact: ranked('exact'), fuzzy: ranked('fuzzy'), highlight };
}
