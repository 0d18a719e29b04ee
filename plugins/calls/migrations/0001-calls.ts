import { Migration } from '@mikro-orm/migrations';

/**
 * Calls: one row per voice call, beside its conversation (no foreign key into the
 * conversations or agents plugins' tables: their rows go by their own events).
 */
export class Migration0001Calls extends Migration {
  override up(): void {
    const statements = [
      `create table "calls" ("uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"conversation_uuid" uuid not null, "agent_uuid" uuid not null, "contact_uuid" uuid null, "channel_uuid" uuid not null, "connection_uuid" uuid not null, ` +
        `"provider" text not null, "direction" text not null, "from_number" text not null, "to_number" text not null, "status" text not null default 'queued', ` +
        `"ended_reason" text null, "ending_reason" text null, "external_id" text null, "answered_by" text null, "muted" boolean not null default false, ` +
        `"silence_prompts" integer not null default 0, "error_message" text null, "answered_at" timestamptz null, "ended_at" timestamptz null, ` +
        `"duration_seconds" integer null, "recording_path" text null, "callback_origin" text not null, "metadata" jsonb not null);`,
      `alter table "calls" add constraint "calls_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
      `create index "calls_tenant_uuid_index" on "calls" ("tenant_uuid");`,
      `create unique index "calls_conversation_unique" on "calls" ("conversation_uuid");`,
      // A provider's callbacks about an incoming call name only its own id: one call per id and connection.
      `create unique index "calls_external_index" on "calls" ("connection_uuid", "external_id");`,
      `create index "calls_list_index" on "calls" ("tenant_uuid", "created_at" desc, "uuid" desc);`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    this.addSql('drop table if exists "calls" cascade;');
  }
}
