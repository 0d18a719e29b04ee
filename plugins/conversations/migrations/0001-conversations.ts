import { Migration } from '@mikro-orm/migrations';

/**
 * Conversations, their sessions and messages, and the message export policy
 * (generated from the entities with getCreateSchemaSQL). `agent_uuid` and
 * `contact_uuid` have no foreign keys: those tables belong to other plugins, and a
 * conversation outlives its agent as history. `conversation_messages_export_index`
 * is the export's keyset order; at most one open session per conversation.
 */
export class Migration0001Conversations extends Migration {
  override up(): void {
    this.addSql(`create table "message_export_settings" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "policy" text not null default 'enabled', primary key ("uuid"));`);
    this.addSql(`create index "message_export_settings_tenant_uuid_index" on "message_export_settings" ("tenant_uuid");`);
    this.addSql(`alter table "message_export_settings" add constraint "message_export_settings_tenant_uuid_unique" unique ("tenant_uuid");`);
    this.addSql(`create table "conversations" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "contact_uuid" uuid null, "channel" text not null, "channel_label" text null, "status" text not null default 'open', "started_at" timestamptz not null, "ended_at" timestamptz null, primary key ("uuid"));`);
    this.addSql(`create index "conversations_tenant_uuid_index" on "conversations" ("tenant_uuid");`);
    this.addSql(`create index "conversations_tenant_uuid_agent_uuid_index" on "conversations" ("tenant_uuid", "agent_uuid");`);
    this.addSql(`create index "conversations_tenant_uuid_started_at_index" on "conversations" ("tenant_uuid", "started_at", "uuid");`);
    this.addSql(`create table "conversation_sessions" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "conversation_uuid" uuid not null, "agent_uuid" uuid not null, "contact_uuid" uuid null, "channel" text not null, "status" text not null default 'open', "started_at" timestamptz not null, "ended_at" timestamptz null, "last_customer_message_at" timestamptz null, "message_count" int not null default 0, "close_reason" text null, primary key ("uuid"));`);
    this.addSql(`create index "conversation_sessions_tenant_uuid_index" on "conversation_sessions" ("tenant_uuid");`);
    this.addSql(`create index "conversation_sessions_tenant_uuid_started_at_index" on "conversation_sessions" ("tenant_uuid", "started_at", "uuid");`);
    this.addSql(`create index "conversation_sessions_tenant_uuid_conversation_uuid_index" on "conversation_sessions" ("tenant_uuid", "conversation_uuid", "started_at");`);
    this.addSql(`create unique index "conversation_sessions_open_unique" on "conversation_sessions" ("conversation_uuid") where status = 'open';`);
    this.addSql(`create table "conversation_messages" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "conversation_uuid" uuid not null, "session_uuid" uuid not null, "contact_uuid" uuid null, "agent_uuid" uuid not null, "channel" text not null, "channel_label" text null, "sender" text not null, "message_type" text not null default 'text', "content" text not null, primary key ("uuid"));`);
    this.addSql(`create index "conversation_messages_tenant_uuid_index" on "conversation_messages" ("tenant_uuid");`);
    this.addSql(`create index "conversation_messages_session_index" on "conversation_messages" ("session_uuid", "created_at", "uuid");`);
    this.addSql(`create index "conversation_messages_channel_export_index" on "conversation_messages" ("tenant_uuid", "channel", "created_at", "uuid");`);
    this.addSql(`create index "conversation_messages_export_index" on "conversation_messages" ("tenant_uuid", "created_at", "uuid");`);
    this.addSql(`alter table "message_export_settings" add constraint "message_export_settings_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversations" add constraint "conversations_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversation_sessions" add constraint "conversation_sessions_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversation_sessions" add constraint "conversation_sessions_conversation_uuid_foreign" foreign key ("conversation_uuid") references "conversations" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_conversation_uuid_foreign" foreign key ("conversation_uuid") references "conversations" ("uuid") on delete cascade;`);
    this.addSql(`alter table "conversation_messages" add constraint "conversation_messages_session_uuid_foreign" foreign key ("session_uuid") references "conversation_sessions" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "conversation_messages" cascade;');
    this.addSql('drop table if exists "conversation_sessions" cascade;');
    this.addSql('drop table if exists "conversations" cascade;');
    this.addSql('drop table if exists "message_export_settings" cascade;');
  }
}
