import { Migration } from '@mikro-orm/migrations';

/**
 * The flows plugin's tables (generated from its entities with getCreateSchemaSQL):
 * flows, their steps, deployed versions, app connections, executions and their step
 * records. `agent_uuid` and `app_connection_uuid` of a step are plain columns: the
 * builder checks them, and an agent's deletion must not rewrite a deployed version.
 */
export class Migration0001Flows extends Migration {
  override up(): void {
    this.addSql(`create table "flow_connections" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "app_uid" text not null, "label" text not null, "credentials" text not null, primary key ("uuid"));`);
    this.addSql(`create index "flow_connections_tenant_uuid_index" on "flow_connections" ("tenant_uuid");`);
    this.addSql(`create index "flow_connections_tenant_app_index" on "flow_connections" ("tenant_uuid", "app_uid");`);
    this.addSql(`create table "flows" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text not null default '', "status" text not null default 'draft', "live_version_uuid" uuid null, "deleted_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "flows_tenant_uuid_index" on "flows" ("tenant_uuid");`);
    this.addSql(`create index "flows_tenant_listing_index" on "flows" ("tenant_uuid", "created_at") where deleted_at is null;`);
    this.addSql(`create table "flow_versions" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "flow_uuid" uuid not null, "number" int not null, "definition" jsonb not null, "trigger_app_uid" text not null, "trigger_key" text not null, "hook_token" text null, "active" boolean not null default true, primary key ("uuid"));`);
    this.addSql(`create index "flow_versions_tenant_uuid_index" on "flow_versions" ("tenant_uuid");`);
    this.addSql(`create index "flow_versions_flow_uuid_index" on "flow_versions" ("flow_uuid");`);
    this.addSql(`create index "flow_versions_hook_token_index" on "flow_versions" ("hook_token");`);
    this.addSql(`create index "flow_versions_live_trigger_index" on "flow_versions" ("tenant_uuid", "trigger_app_uid", "trigger_key") where active;`);
    this.addSql(`create table "flow_steps" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "flow_uuid" uuid not null, "kind" text not null, "parent_step_uuid" uuid null, "branch_key" text null, "ord" int not null, "app_uid" text not null, "trigger_key" text null, "action_key" text null, "agent_uuid" uuid null, "app_connection_uuid" uuid null, "config" jsonb not null, "status" text not null default 'draft', "status_message" text null, "last_test" jsonb null, "hook_token" text null, "continue_on_error" boolean not null default false, primary key ("uuid"));`);
    this.addSql(`create index "flow_steps_tenant_uuid_index" on "flow_steps" ("tenant_uuid");`);
    this.addSql(`create index "flow_steps_flow_uuid_index" on "flow_steps" ("flow_uuid");`);
    this.addSql(`alter table "flow_steps" add constraint "flow_steps_hook_token_unique" unique ("hook_token");`);
    this.addSql(`create table "flow_executions" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "flow_uuid" uuid not null, "version_uuid" uuid not null, "status" text not null default 'queued', "trigger_event" jsonb not null, "cursor" uuid null, "segment" int not null default 0, "error" text null, "started_at" timestamptz null, "finished_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "flow_executions_tenant_uuid_index" on "flow_executions" ("tenant_uuid");`);
    this.addSql(`create index "flow_executions_version_uuid_index" on "flow_executions" ("version_uuid");`);
    this.addSql(`create index "flow_executions_created_at_index" on "flow_executions" ("created_at");`);
    this.addSql(`create index "flow_executions_history_index" on "flow_executions" ("flow_uuid", "created_at");`);
    this.addSql(`create table "flow_execution_steps" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "execution_uuid" uuid not null, "step_uuid" uuid not null, "position" int not null, "status" text not null, "request" jsonb null, "response" jsonb null, "error" text null, "duration_ms" int not null, primary key ("uuid"));`);
    this.addSql(`create index "flow_execution_steps_tenant_uuid_index" on "flow_execution_steps" ("tenant_uuid");`);
    this.addSql(`create index "flow_execution_steps_execution_uuid_index" on "flow_execution_steps" ("execution_uuid");`);
    this.addSql(`alter table "flow_connections" add constraint "flow_connections_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flows" add constraint "flows_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_versions" add constraint "flow_versions_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_versions" add constraint "flow_versions_flow_uuid_foreign" foreign key ("flow_uuid") references "flows" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_steps" add constraint "flow_steps_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_steps" add constraint "flow_steps_flow_uuid_foreign" foreign key ("flow_uuid") references "flows" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_executions" add constraint "flow_executions_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_executions" add constraint "flow_executions_flow_uuid_foreign" foreign key ("flow_uuid") references "flows" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_executions" add constraint "flow_executions_version_uuid_foreign" foreign key ("version_uuid") references "flow_versions" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_execution_steps" add constraint "flow_execution_steps_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "flow_execution_steps" add constraint "flow_execution_steps_execution_uuid_foreign" foreign key ("execution_uuid") references "flow_executions" ("uuid") on delete cascade;`);
  }
  override down(): void {
    for (const table of ['flow_execution_steps', 'flow_executions', 'flow_steps', 'flow_versions', 'flows', 'flow_connections']) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
