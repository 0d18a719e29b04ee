import { Migration } from '@mikro-orm/migrations';

/** The agents plugin's tables: the agent and one table per list it owns (generated from the entities). */
export class Migration0001Agents extends Migration {
  override up(): void {
    this.addSql(`create table "agents" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(200) not null, "description" text not null default '', "company_name" text not null default '', "role" text not null default '', "objective" text not null default '', "tone" text not null default '', "behavior_guidelines" text not null default '', "company_service" text not null default '', "topic" text not null default '', "length_detail" text not null default '', "interest_of_product" text not null default '', "negative_response" text not null default '', "custom_prompt" text not null default '', "recommendations" text not null default '', "status" varchar(16) not null default 'pending', "language" varchar(35) not null default 'en-US', "speed" varchar(32) not null default 'normal', "timezone" varchar(64) not null default 'UTC', "appointment_scheduling_enabled" boolean not null default false, "appointment_scheduling_randomly" boolean not null default false, "custom_llm_url" text null, "voice_settings" jsonb not null, "text_settings" jsonb not null, "appointments" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "agents_tenant_uuid_index" on "agents" ("tenant_uuid");`);
    this.addSql(`create table "agent_webhooks" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "url" text not null, "events" jsonb not null, "is_active" boolean not null default true, "secret" text null, primary key ("uuid"));`);
    this.addSql(`create index "agent_webhooks_tenant_uuid_index" on "agent_webhooks" ("tenant_uuid");`);
    this.addSql(`create index "agent_webhooks_agent_uuid_index" on "agent_webhooks" ("agent_uuid");`);
    this.addSql(`create table "agent_training_rows" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "content" text not null default '', "intent" text not null default '', "response" text not null default '', primary key ("uuid"));`);
    this.addSql(`create index "agent_training_rows_tenant_uuid_index" on "agent_training_rows" ("tenant_uuid");`);
    this.addSql(`create index "agent_training_rows_agent_uuid_index" on "agent_training_rows" ("agent_uuid");`);
    this.addSql(`create table "agent_routing_rules" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "detection_mode" varchar(32) not null default 'intent', "trigger_keyword" text not null default '', "department_name" text not null default '', "phrases" jsonb not null, "ai_prompt" text not null default '', "voice_response" text not null default '', "voice_on_error" text not null default '', "voice_on_success" text not null default '', "destination_type" varchar(32) not null default '', "destination" text not null default '', "destination_agent_uuid" uuid null, "transfer_type" varchar(32) not null default 'transfer_call', "transfer_config" jsonb not null, "priority" int not null, "is_active" boolean not null default true, primary key ("uuid"));`);
    this.addSql(`create index "agent_routing_rules_tenant_uuid_index" on "agent_routing_rules" ("tenant_uuid");`);
    this.addSql(`create index "agent_routing_rules_agent_uuid_index" on "agent_routing_rules" ("agent_uuid");`);
    this.addSql(`create index "agent_routing_rules_destination_agent_uuid_index" on "agent_routing_rules" ("destination_agent_uuid");`);
    this.addSql(`create table "agent_procedures" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "name" varchar(200) not null, "description" text not null default '', "steps" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_procedures_tenant_uuid_index" on "agent_procedures" ("tenant_uuid");`);
    this.addSql(`create index "agent_procedures_agent_uuid_index" on "agent_procedures" ("agent_uuid");`);
    this.addSql(`create table "agent_phone_numbers" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "number" varchar(16) not null, "status" varchar(16) not null default 'active', "country_code" varchar(2) null, "type" varchar(32) not null default 'local', "capabilities" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_phone_numbers_tenant_uuid_index" on "agent_phone_numbers" ("tenant_uuid");`);
    this.addSql(`create index "agent_phone_numbers_agent_uuid_index" on "agent_phone_numbers" ("agent_uuid");`);
    this.addSql(`alter table "agent_phone_numbers" add constraint "agent_phone_numbers_tenant_uuid_number_unique" unique ("tenant_uuid", "number");`);
    this.addSql(`create table "agent_notes" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "content" text not null, "order" int not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_notes_tenant_uuid_index" on "agent_notes" ("tenant_uuid");`);
    this.addSql(`create index "agent_notes_agent_uuid_index" on "agent_notes" ("agent_uuid");`);
    this.addSql(`create table "agent_intents" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "key" varchar(64) not null, "name" varchar(200) not null default '', "description" text not null default '', "recommendation_actions" text not null default '', "confidence_threshold" double precision not null default 0.5, "is_system" boolean not null default false, "intent_llm_handle_by_response" boolean not null default false, "webhook_url" text null, "webhook_auth_token" text null, "parameters" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_intents_tenant_uuid_index" on "agent_intents" ("tenant_uuid");`);
    this.addSql(`create index "agent_intents_agent_uuid_index" on "agent_intents" ("agent_uuid");`);
    this.addSql(`alter table "agent_intents" add constraint "agent_intents_agent_uuid_key_unique" unique ("agent_uuid", "key");`);
    this.addSql(`create table "agent_guidelines" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "content" text not null, "order" int not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_guidelines_tenant_uuid_index" on "agent_guidelines" ("tenant_uuid");`);
    this.addSql(`create index "agent_guidelines_agent_uuid_index" on "agent_guidelines" ("agent_uuid");`);
    this.addSql(`create table "agent_guard_rules" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "name" text not null default '', "when_condition" text not null, "example_phrases" jsonb not null, "then_action" varchar(32) not null, "selected_channels" jsonb not null, "say_before_forwarding" text not null default '', "say_before_end" text not null default '', "destination_type" varchar(32) not null default '', "destination" text not null default '', "destination_agent_uuid" uuid null, "is_active" boolean not null default true, "is_default" boolean not null default false, primary key ("uuid"));`);
    this.addSql(`create index "agent_guard_rules_tenant_uuid_index" on "agent_guard_rules" ("tenant_uuid");`);
    this.addSql(`create index "agent_guard_rules_agent_uuid_index" on "agent_guard_rules" ("agent_uuid");`);
    this.addSql(`create index "agent_guard_rules_destination_agent_uuid_index" on "agent_guard_rules" ("destination_agent_uuid");`);
    this.addSql(`create table "agent_channels" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "type" varchar(32) not null, "name" varchar(200) not null default '', "is_active" boolean not null default true, "config" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_channels_tenant_uuid_index" on "agent_channels" ("tenant_uuid");`);
    this.addSql(`create index "agent_channels_agent_uuid_index" on "agent_channels" ("agent_uuid");`);
    this.addSql(`alter table "agents" add constraint "agents_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_webhooks" add constraint "agent_webhooks_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_webhooks" add constraint "agent_webhooks_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_training_rows" add constraint "agent_training_rows_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_training_rows" add constraint "agent_training_rows_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_routing_rules" add constraint "agent_routing_rules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_routing_rules" add constraint "agent_routing_rules_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_routing_rules" add constraint "agent_routing_rules_destination_agent_uuid_foreign" foreign key ("destination_agent_uuid") references "agents" ("uuid") on delete restrict;`);
    this.addSql(`alter table "agent_procedures" add constraint "agent_procedures_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_procedures" add constraint "agent_procedures_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_phone_numbers" add constraint "agent_phone_numbers_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_phone_numbers" add constraint "agent_phone_numbers_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_notes" add constraint "agent_notes_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_notes" add constraint "agent_notes_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_intents" add constraint "agent_intents_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_intents" add constraint "agent_intents_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_guidelines" add constraint "agent_guidelines_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_guidelines" add constraint "agent_guidelines_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_guard_rules" add constraint "agent_guard_rules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_guard_rules" add constraint "agent_guard_rules_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_guard_rules" add constraint "agent_guard_rules_destination_agent_uuid_foreign" foreign key ("destination_agent_uuid") references "agents" ("uuid") on delete restrict;`);
    this.addSql(`alter table "agent_channels" add constraint "agent_channels_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "agent_channels" add constraint "agent_channels_agent_uuid_foreign" foreign key ("agent_uuid") references "agents" ("uuid") on delete cascade;`);
  }

  override down(): void {
    this.addSql('drop table if exists "agent_channels" cascade;');
    this.addSql('drop table if exists "agent_guard_rules" cascade;');
    this.addSql('drop table if exists "agent_guidelines" cascade;');
    this.addSql('drop table if exists "agent_intents" cascade;');
    this.addSql('drop table if exists "agent_notes" cascade;');
    this.addSql('drop table if exists "agent_phone_numbers" cascade;');
    this.addSql('drop table if exists "agent_procedures" cascade;');
    this.addSql('drop table if exists "agent_routing_rules" cascade;');
    this.addSql('drop table if exists "agent_training_rows" cascade;');
    this.addSql('drop table if exists "agent_webhooks" cascade;');
    this.addSql('drop table if exists "agents" cascade;');
  }
}
