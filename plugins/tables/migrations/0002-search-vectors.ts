import { Migration } from '@mikro-orm/migrations';

/**
 * `data_table_search_vectors`: record embeddings for hybrid search (search/embeddings),
 * created only where the database offers pgvector (and this role may install it). Elsewhere the block does
 *   nothing and search stays lexical. It has no entity, because it does not exist on
 *   every installation; search reads and writes it in raw SQL after checking it exists.
 */
export class Migration0002SearchVectors extends Migration {
  override up(): void {
    this.addSql(`
do $$
begin
  if not exists (select 1 from pg_available_extensions where name = 'vector') then
    return;
  end if;
  begin
    create extension if not exists vector;
  exception when insufficient_privilege then
    raise notice 'pgvector is installed on the server but this role may not create the extension: table search stays lexical';
    return;
  end;
  -- An entry's embedding: gone with the entry; recomputed when the entry's document or the model changes.
  create table "data_table_search_vectors" (
    "uuid" uuid not null primary key references "data_table_search_entries" ("uuid") on delete cascade,
    "tenant_uuid" uuid not null references "tenants" ("uuid") on delete cascade,
    "table_uuid" uuid not null references "data_tables" ("uuid") on delete cascade,
    "created_at" timestamptz not null,
    "updated_at" timestamptz not null,
    "model" text not null,
    "document_md5" text not null,
    "embedding" vector not null
  );
  create index "data_table_search_vectors_table_index" on "data_table_search_vectors" ("table_uuid", "model");
  create index "data_table_search_vectors_tenant_uuid_index" on "data_table_search_vectors" ("tenant_uuid");
end
$$;`);
  }

  override down(): void {
    this.addSql('drop table if exists "data_table_search_vectors" cascade;');
  }
}
