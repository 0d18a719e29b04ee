import { Migration } from '@mikro-orm/migrations';

/**
 * Evaluate settings (a default and per-agent overrides) and evaluation records
 * (generated from the entities with getCreateSchemaSQL). `agent_uuid` and
 * `session_uuid` have no foreign keys: agents and sessions belong to other plugins.
 * An agent's override is deleted when its `agent.deleted` message is consumed.
 */
export class Migration0001Evaluation extends Migration {
  override up(): void {
    this.addSql(`create table "evaluations" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "session_uuid" uuid not null, "conversation_uuid" uuid not null, "agent_uuid" uuid not null, "channel" text not null, "settings_source" text not null, "block" text not null, "mode" text not null, "status" text not null, "results" jsonb not null, "success" boolean null, "success_reason" text null, "summary" text null, "errors" jsonb not null, "llm_calls" int not null default 0, "tokens" int not null default 0, "runs" int not null default 1, primary key ("uuid"));`);
    this.addSql(`create index "evaluations_tenant_uuid_index" on "evaluations" ("tenant_uuid");`);
    this.addSql(`create index "evaluations_tenant_uuid_agent_uuid_created_at_index" on "evaluations" ("tenant_uuid", "agent_uuid", "created_at");`);
    this.addSql(`create index "evaluations_tenant_uuid_created_at_index" on "evaluations" ("tenant_uuid", "created_at", "uuid");`);
    this.addSql(`alter table "evaluations" add constraint "evaluations_tenant_uuid_session_uuid_unique" unique ("tenant_uuid", "session_uuid");`);
    this.addSql(`create table "evaluate_settings" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid null, "is_active" boolean not null default true, "mode" text not null default 'per_analyzer', "sessionization" jsonb not null, "text" jsonb not null, "voice" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "evaluate_settings_tenant_uuid_index" on "evaluate_settings" ("tenant_uuid");`);
    this.addSql(`create unique index "evaluate_settings_tenant_uuid_default_unique" on "evaluate_settings" ("tenant_uuid") where agent_uuid is null;`);
    this.addSql(`alter table "evaluate_settings" add constraint "evaluate_settings_tenant_uuid_agent_uuid_unique" unique ("tenant_uuid", "agent_uuid");`);
    this.addSql(`alter table "evaluations" add constraint "evaluations_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "evaluate_settings" add constraint "evaluate_settings_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "evaluations" cascade;');
    this.addSql('drop table if exists "evaluate_settings" cascade;');
  }
}
