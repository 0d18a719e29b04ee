import { Migration } from '@mikro-orm/migrations';

/**
 * The tables plugin's tables (generated from its entities with getCreateSchemaSQL):
 * tables, columns, records, the search index (full text by table, hence btree_gin) and
 * each table's word list (trigram-indexed: where typos are forgiven, hence pg_trgm),
 * assignments to agents, imports and the uploaded content they read. `agent_uuid` of an
 * assignment is a plain column: the agents plugin's deletion event removes the row.
 */
export class Migration0001Tables extends Migration {
  override up(): void {
    // Both are trusted extensions (PostgreSQL contrib): a database owner without superuser may create them.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(`create table "data_tables" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text not null default '', "search_language" text not null default 'english', "next_column_key" int not null default 1, "index_status" text not null default 'current', "indexed_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "data_tables_tenant_uuid_index" on "data_tables" ("tenant_uuid");`);
    this.addSql(`create index "data_tables_tenant_listing_index" on "data_tables" ("tenant_uuid", "created_at");`);
    this.addSql(`create table "data_table_search_words" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "word" text not null, "ndoc" int not null default 1, primary key ("uuid"));`);
    this.addSql(`create index "data_table_search_words_tenant_uuid_index" on "data_table_search_words" ("tenant_uuid");`);
    this.addSql(`create index "data_table_search_words_trgm_index" on "data_table_search_words" using gin ("table_uuid", "word" gin_trgm_ops);`);
    this.addSql(`alter table "data_table_search_words" add constraint "data_table_search_words_table_word_unique" unique ("table_uuid", "word");`);
    this.addSql(`create table "data_table_search_entries" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "document" text not null, "tsv" tsvector not null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_search_entries_tenant_uuid_index" on "data_table_search_entries" ("tenant_uuid");`);
    this.addSql(`create index "data_table_search_entries_table_uuid_index" on "data_table_search_entries" ("table_uuid");`);
    this.addSql(`create index "data_table_search_entries_tsv_index" on "data_table_search_entries" using gin ("table_uuid", "tsv");`);
    this.addSql(`create table "data_table_records" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "values" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_records_tenant_uuid_index" on "data_table_records" ("tenant_uuid");`);
    this.addSql(`create index "data_table_records_table_index" on "data_table_records" ("table_uuid", "uuid");`);
    this.addSql(`create table "data_table_imports" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "creates_table" boolean not null, "source" text not null, "format" text not null, "source_name" text not null default '', "options" jsonb not null, "status" text not null default 'queued', "progress_done" bigint not null default '0', "progress_total" bigint null, "progress_unit" text not null default 'bytes', "rows_imported" int not null default 0, "error_count" int not null default 0, "errors" jsonb not null, "message" text null, "started_at" timestamptz null, "finished_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_imports_tenant_uuid_index" on "data_table_imports" ("tenant_uuid");`);
    this.addSql(`create index "data_table_imports_table_uuid_index" on "data_table_imports" ("table_uuid");`);
    this.addSql(`create table "data_table_import_chunks" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "import_uuid" uuid not null, "seq" int not null, "data" bytea not null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_import_chunks_tenant_uuid_index" on "data_table_import_chunks" ("tenant_uuid");`);
    this.addSql(`create index "data_table_import_chunks_order_index" on "data_table_import_chunks" ("import_uuid", "seq");`);
    this.addSql(`create table "data_table_columns" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "name" text not null, "data_type" text not null, "key" text not null, "ord" int not null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_columns_tenant_uuid_index" on "data_table_columns" ("tenant_uuid");`);
    this.addSql(`alter table "data_table_columns" add constraint "data_table_columns_table_key_unique" unique ("table_uuid", "key");`);
    this.addSql(`alter table "data_table_columns" add constraint "data_table_columns_table_name_unique" unique ("table_uuid", "name");`);
    this.addSql(`create table "data_table_assignments" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "table_uuid" uuid not null, "agent_uuid" uuid not null, "mode" text not null, primary key ("uuid"));`);
    this.addSql(`create index "data_table_assignments_tenant_uuid_index" on "data_table_assignments" ("tenant_uuid");`);
    this.addSql(`create index "data_table_assignments_agent_index" on "data_table_assignments" ("tenant_uuid", "agent_uuid");`);
    this.addSql(`alter table "data_table_assignments" add constraint "data_table_assignments_table_agent_unique" unique ("table_uuid", "agent_uuid");`);
    this.addSql(`alter table "data_tables" add constraint "data_tables_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_search_words" add constraint "data_table_search_words_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_search_words" add constraint "data_table_search_words_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_search_entries" add constraint "data_table_search_entries_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_search_entries" add constraint "data_table_search_entries_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_records" add constraint "data_table_records_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_records" add constraint "data_table_records_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_imports" add constraint "data_table_imports_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_imports" add constraint "data_table_imports_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_import_chunks" add constraint "data_table_import_chunks_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_import_chunks" add constraint "data_table_import_chunks_import_uuid_foreign" foreign key ("import_uuid") references "data_table_imports" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_columns" add constraint "data_table_columns_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_columns" add constraint "data_table_columns_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_assignments" add constraint "data_table_assignments_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "data_table_assignments" add constraint "data_table_assignments_table_uuid_foreign" foreign key ("table_uuid") references "data_tables" ("uuid") on delete cascade;`);
  }
  override down(): void {
    for (const table of ['data_table_import_chunks', 'data_table_imports', 'data_table_assignments', 'data_table_search_words', 'data_table_search_entries', 'data_table_records', 'data_table_columns', 'data_tables'])
      this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
