import { Migration } from '@mikro-orm/migrations';

/**
 * The memorize settings table (generated from the entity with getCreateSchemaSQL).
 * `agent_uuid` has no foreign key to `agents`: the entity cannot declare one without
 * importing the agents plugin's entity, and a key only here would be schema drift.
 * An agent's override is deleted when its `agent.deleted` message is consumed.
 */
export class Migration0001Memorize extends Migration {
  override up(): void {
    this.addSql(`create table "memorize_settings" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid null, "enabled" boolean not null default false, "retention_days" int not null default 365, "fields" jsonb not null, "summary_prompt" text not null default '', primary key ("uuid"));`);
    this.addSql(`create index "memorize_settings_tenant_uuid_index" on "memorize_settings" ("tenant_uuid");`);
    this.addSql(`create unique index "memorize_settings_tenant_uuid_default_unique" on "memorize_settings" ("tenant_uuid") where agent_uuid is null;`);
    this.addSql(`alter table "memorize_settings" add constraint "memorize_settings_tenant_uuid_agent_uuid_unique" unique ("tenant_uuid", "agent_uuid");`);
    this.addSql(`alter table "memorize_settings" add constraint "memorize_settings_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "memorize_settings" cascade;');
  }
}
