import { Migration } from '@mikro-orm/migrations';
import { LISTING_CONTACTS_LISTING_KEY, POOL_ITEMS_POOL_KEY } from '../entities/membership-keys';

/**
 * Outreach: rules, campaigns and their rules, pools and pool items, listings and their
 * contacts, tasks (generated from the entities with getCreateSchemaSQL). Contact and
 * agent uuids have no foreign keys: those tables belong to other plugins. Pool items and
 * listing contacts reach their pool or listing through a foreign key checked once per
 * statement (`statementForeignKey`): they are written a thousand at a time.
 */
const MEMBERSHIP_KEYS = [POOL_ITEMS_POOL_KEY, LISTING_CONTACTS_LISTING_KEY];

export class Migration0001Outreach extends Migration {
  override up(): void {
    this.addSql(`create table "tasks" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "title" text not null default '', "type" text not null, "agent_uuid" uuid not null, "contact_uuid" uuid not null, "campaign_uuid" uuid null, "pool_uuid" uuid null, "rule_uuid" uuid null, "scheduled_at" timestamptz not null, "description" text not null default '', "timezone" text null, "priority" int not null default 5, "expires_at" timestamptz null, "max_retry_attempts" int not null default 3, "retry_interval_minutes" int not null default 60, "retry_strategy" text not null default 'fixed', "retry_schedule" jsonb null, "task_data" jsonb not null, "webhook_secret" text null, "metadata" jsonb not null, "auto_queue" boolean not null default false, "status" text not null default 'pending', "attempts" int not null default 0, "last_attempt_at" timestamptz null, "next_attempt_at" timestamptz null, "started_at" timestamptz null, "finished_at" timestamptz null, "last_error" text null, "result" jsonb null, primary key ("uuid"));`);
    this.addSql(`create index "tasks_tenant_uuid_index" on "tasks" ("tenant_uuid");`);
    this.addSql(`create index "tasks_tenant_uuid_contact_uuid_index" on "tasks" ("tenant_uuid", "contact_uuid");`);
    this.addSql(`create index "tasks_pool_uuid_contact_uuid_index" on "tasks" ("pool_uuid", "contact_uuid");`);
    this.addSql(`create index "tasks_tenant_uuid_status_scheduled_at_index" on "tasks" ("tenant_uuid", "status", "scheduled_at");`);
    this.addSql(`create index "tasks_campaign_uuid_status_index" on "tasks" ("campaign_uuid", "status");`);
    this.addSql(`create index "tasks_due_index" on "tasks" ("tenant_uuid", "next_attempt_at") where status in ('pending', 'scheduled', 'queued');`);
    this.addSql(`create index "tasks_contact_rule_last_attempt_index" on "tasks" ("tenant_uuid", "contact_uuid", "rule_uuid", "last_attempt_at") where last_attempt_at is not null;`);
    this.addSql(`create table "outreach_rules" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "weekdays" jsonb not null, "start_time" text not null default '09:00', "end_time" text not null default '18:00', "timezone" text not null default 'UTC', "max_attempts" int not null default 3, "min_gap_minutes" int not null default 60, "channel" text null, "is_active" boolean not null default true, primary key ("uuid"));`);
    this.addSql(`create index "outreach_rules_tenant_uuid_index" on "outreach_rules" ("tenant_uuid");`);
    this.addSql(`create table "campaigns" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text not null default '', "agent_uuid" uuid not null, "status" text not null default 'draft', "task_type" text not null, "task_data" jsonb not null, "webhook_secret" text null, "priority" int not null default 5, "last_error" text null, primary key ("uuid"));`);
    this.addSql(`create index "campaigns_tenant_uuid_index" on "campaigns" ("tenant_uuid");`);
    this.addSql(`create table "pools" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "campaign_uuid" uuid not null, "name" text not null, primary key ("uuid"));`);
    this.addSql(`create index "pools_tenant_uuid_index" on "pools" ("tenant_uuid");`);
    this.addSql(`create index "pools_campaign_uuid_index" on "pools" ("campaign_uuid");`);
    this.addSql(`create table "pool_items" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "pool_uuid" uuid not null, "contact_uuid" uuid not null, primary key ("uuid"));`);
    this.addSql(`create index "pool_items_contact_uuid_index" on "pool_items" ("contact_uuid");`);
    this.addSql(`alter table "pool_items" add constraint "pool_items_pool_uuid_contact_uuid_unique" unique ("pool_uuid", "contact_uuid");`);
    this.addSql(`create table "listings" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" text not null, "description" text not null default '', "pool_uuid" uuid null, primary key ("uuid"));`);
    this.addSql(`create index "listings_tenant_uuid_index" on "listings" ("tenant_uuid");`);
    this.addSql(`create index "listings_pool_uuid_index" on "listings" ("pool_uuid");`);
    this.addSql(`create table "listing_contacts" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "listing_uuid" uuid not null, "contact_uuid" uuid not null, primary key ("uuid"));`);
    this.addSql(`create index "listing_contacts_contact_uuid_index" on "listing_contacts" ("contact_uuid");`);
    this.addSql(`alter table "listing_contacts" add constraint "listing_contacts_listing_uuid_contact_uuid_unique" unique ("listing_uuid", "contact_uuid");`);
    this.addSql(`create table "campaign_rules" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "campaign_uuid" uuid not null, "rule_uuid" uuid not null, primary key ("uuid"));`);
    this.addSql(`create index "campaign_rules_tenant_uuid_index" on "campaign_rules" ("tenant_uuid");`);
    this.addSql(`create index "campaign_rules_rule_uuid_index" on "campaign_rules" ("rule_uuid");`);
    this.addSql(`alter table "campaign_rules" add constraint "campaign_rules_campaign_uuid_rule_uuid_unique" unique ("campaign_uuid", "rule_uuid");`);
    this.addSql(`alter table "tasks" add constraint "tasks_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "outreach_rules" add constraint "outreach_rules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "campaigns" add constraint "campaigns_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "pools" add constraint "pools_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "pools" add constraint "pools_campaign_uuid_foreign" foreign key ("campaign_uuid") references "campaigns" ("uuid") on delete cascade;`);
    this.addSql(`alter table "listings" add constraint "listings_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "listings" add constraint "listings_pool_uuid_foreign" foreign key ("pool_uuid") references "pools" ("uuid") on delete set null;`);
    this.addSql(`alter table "campaign_rules" add constraint "campaign_rules_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "campaign_rules" add constraint "campaign_rules_campaign_uuid_foreign" foreign key ("campaign_uuid") references "campaigns" ("uuid") on delete cascade;`);
    this.addSql(`alter table "campaign_rules" add constraint "campaign_rules_rule_uuid_foreign" foreign key ("rule_uuid") references "outreach_rules" ("uuid") on delete cascade;`);
    for (const key of MEMBERSHIP_KEYS) for (const sql of key.up) this.addSql(sql);
  }
  override down(): void {
    for (const key of MEMBERSHIP_KEYS) for (const sql of key.down) this.addSql(sql);
    this.addSql('drop table if exists "tasks" cascade;');
    this.addSql('drop table if exists "listing_contacts" cascade;');
    this.addSql('drop table if exists "listings" cascade;');
    this.addSql('drop table if exists "pool_items" cascade;');
    this.addSql('drop table if exists "pools" cascade;');
    this.addSql('drop table if exists "campaign_rules" cascade;');
    this.addSql('drop table if exists "campaigns" cascade;');
    this.addSql('drop table if exists "outreach_rules" cascade;');
  }
}
