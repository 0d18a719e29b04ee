import { Migration } from '@mikro-orm/migrations';

/**
 * Chatapp message templates of each tenant, one row per platform template id (sync
 * upserts on it). No foreign key to the connection: deleting a connection leaves its
 * templates, which a template delete removes.
 */
export class Migration0002ChatappTemplates extends Migration {
  override up(): void {
    const statements = [
      `create table "chatapp_templates" ("uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"connection_uuid" uuid not null, "waba_id" text not null, "platform_id" text not null, "name" text not null, "language" text not null, "category" text not null, ` +
        `"status" text not null, "components" jsonb not null, "parameters" jsonb not null);`,
      `alter table "chatapp_templates" add constraint "chatapp_templates_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
      `create index "chatapp_templates_tenant_uuid_index" on "chatapp_templates" ("tenant_uuid");`,
      `create unique index "chatapp_templates_platform_unique" on "chatapp_templates" ("tenant_uuid", "platform_id");`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    this.addSql('drop table if exists "chatapp_templates" cascade;');
  }
}
