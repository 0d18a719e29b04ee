import { Migration } from '@mikro-orm/migrations';

/**
 * Where deployed poll triggers take up (FlowTriggerCursor): one row per deployed version,
 * gone with the version or the tenant. Row-level security is ensured after the
 * migrations, from the entity's metadata, as for every tenant table.
 */
export class Migration0002TriggerCursors extends Migration {
  override up(): void {
    this.addSql(`create table "flow_trigger_cursors" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "version_uuid" uuid not null, "step_uuid" uuid not null, "cursor" jsonb null, "revision" int not null default 0, primary key ("uuid"));`);
    this.addSql(`create index "flow_trigger_cursors_tenant_uuid_index" on "flow_trigger_cursors" ("tenant_uuid");`);
    this.addSql(`alter table "flow_trigger_cursors" add constraint "flow_trigger_cursors_version_unique" unique ("version_uuid");`);
    this.addSql(`alter table "flow_trigger_cursors" add constraint "flow_trigger_cursors_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_trigger_cursors" add constraint "flow_trigger_cursors_version_uuid_foreign" foreign key ("version_uuid") references "flow_versions" ("uuid") on delete cascade;`);
  }

  override down(): void {
    this.addSql('drop table if exists "flow_trigger_cursors" cascade;');
  }
}
