import { Migration } from '@mikro-orm/migrations';

/**
 * Contacts, custom contact fields, contact settings, contact analyzers and approvals
 * (generated from the entities with getCreateSchemaSQL). Phone and email are unique per
 * tenant (PostgreSQL's unique constraints let any number of rows have neither).
 */
export class Migration0001Contacts extends Migration {
  override up(): void {
    this.addSql(`create table "contact_settings" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "key" text not null, "value" jsonb not null, primary key ("uuid"));`);
    this.addSql(`create index "contact_settings_tenant_uuid_index" on "contact_settings" ("tenant_uuid");`);
    this.addSql(`alter table "contact_settings" add constraint "contact_settings_tenant_uuid_key_unique" unique ("tenant_uuid", "key");`);
    this.addSql(`create table "contact_fields" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "key" text not null, "name" text not null, "data_type" text not null default 'text', "description" text not null default '', primary key ("uuid"));`);
    this.addSql(`create index "contact_fields_tenant_uuid_index" on "contact_fields" ("tenant_uuid");`);
    this.addSql(`alter table "contact_fields" add constraint "contact_fields_tenant_uuid_key_unique" unique ("tenant_uuid", "key");`);
    this.addSql(`create table "contact_analyzers" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "analyzer_id" text not null, "name" text not null default '', "instruction" text not null, "enabled" boolean not null default true, "auto_approve" boolean not null default false, primary key ("uuid"));`);
    this.addSql(`create index "contact_analyzers_tenant_uuid_index" on "contact_analyzers" ("tenant_uuid");`);
    this.addSql(`alter table "contact_analyzers" add constraint "contact_analyzers_tenant_uuid_analyzer_id_unique" unique ("tenant_uuid", "analyzer_id");`);
    this.addSql(`create table "contacts" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text null, "surname" text null, "phone_number" text null, "email" text null, "timezone" text null, "country_code" text null, "primary_language" text null, "company" text null, "city" text null, "lead_source" text null, "pipeline_stage" text null, "custom_fields" jsonb not null, "opted_out" boolean not null default false, primary key ("uuid"));`);
    this.addSql(`create index "contacts_tenant_uuid_index" on "contacts" ("tenant_uuid");`);
    this.addSql(`create index "contacts_tenant_uuid_created_at_index" on "contacts" ("tenant_uuid", "created_at", "uuid");`);
    this.addSql(`alter table "contacts" add constraint "contacts_tenant_uuid_email_unique" unique ("tenant_uuid", "email");`);
    this.addSql(`alter table "contacts" add constraint "contacts_tenant_uuid_phone_number_unique" unique ("tenant_uuid", "phone_number");`);
    this.addSql(`create table "contact_approvals" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "contact_uuid" uuid not null, "analyzer_id" text not null, "field" text not null, "current_value" jsonb null, "proposed_value" jsonb null, "session_uuid" uuid null, "reason" text not null default '', "status" text not null default 'pending', "decided_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "contact_approvals_tenant_uuid_index" on "contact_approvals" ("tenant_uuid");`);
    this.addSql(`create index "contact_approvals_contact_uuid_index" on "contact_approvals" ("contact_uuid");`);
    this.addSql(`create index "contact_approvals_tenant_uuid_status_index" on "contact_approvals" ("tenant_uuid", "status", "created_at");`);
    this.addSql(`alter table "contact_settings" add constraint "contact_settings_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "contact_fields" add constraint "contact_fields_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "contact_analyzers" add constraint "contact_analyzers_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "contacts" add constraint "contacts_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "contact_approvals" add constraint "contact_approvals_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "contact_approvals" add constraint "contact_approvals_contact_uuid_foreign" foreign key ("contact_uuid") references "contacts" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "contact_approvals" cascade;');
    this.addSql('drop table if exists "contact_analyzers" cascade;');
    this.addSql('drop table if exists "contact_settings" cascade;');
    this.addSql('drop table if exists "contact_fields" cascade;');
    this.addSql('drop table if exists "contacts" cascade;');
  }
}
