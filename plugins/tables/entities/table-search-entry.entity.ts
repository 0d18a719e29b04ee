import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { DataTable } from './data-table.entity';

/**
 * A record's entry in the search index; `uuid` is the record's. Kept apart from the
 * records so that a bulk import is a plain COPY and the index is built afterwards, in
 * one statement, by a sync. `tsv` is full-text (language-aware), `document` feeds the
 * trigram index that forgives typos.
 */
@Entity({ tableName: 'data_table_search_entries' })
@Index({ name: 'data_table_search_entries_tsv_index', expression: 'create index "data_table_search_entries_tsv_index" on "data_table_search_entries" using gin ("tsv")' })
@Index({
  name: 'data_table_search_entries_trgm_index',
  expression: 'create index "data_table_search_entries_trgm_index" on "data_table_search_entries" using gin ("document" gin_trgm_ops)',
})
export class TableSearchEntry extends TenantScopedEntity {
  @ManyToOne(() => DataTable, { mapToPk: true, fieldName: 'table_uuid', deleteRule: 'cascade', index: true })
  tableUuid!: string;

  @Property({ type: 'text' })
  document!: string;

  @Property({ columnType: 'tsvector' })
  tsv!: string;
}
