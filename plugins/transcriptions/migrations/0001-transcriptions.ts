import { Migration } from '@mikro-orm/migrations';

/**
 * Transcriptions: one row per audio file, beside its stored file and the conversation
 * it becomes (no foreign key into the agents or conversations plugins' tables: an agent
 * deleted later leaves the transcription as history).
 */
export class Migration0001Transcriptions extends Migration {
  override up(): void {
    const statements = [
      `create table "transcriptions" ("uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"reference_id" text null, "status" text not null default 'queued', "agent_uuid" uuid null, "qa_agent_uuid" uuid null, "coaching_agent_uuid" uuid null, ` +
        `"language" text null, "storage_key" text not null, "stored_file_path" text not null, "format" text not null, "mime_type" text not null, ` +
        `"size_bytes" integer not null, "duration_seconds" double precision not null, "source_name" text null, "source_url" text null, "api_origin" text not null, ` +
        `"possible_language" text null, "result" jsonb null, "error_message" text null, "processed_at" timestamptz null, "conversation_uuid" uuid null, ` +
        `"callback_url" text null, "callback_secret" text null, "runs" integer not null default 0);`,
      `alter table "transcriptions" add constraint "transcriptions_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
      `create index "transcriptions_tenant_uuid_index" on "transcriptions" ("tenant_uuid");`,
      `create index "transcriptions_list_index" on "transcriptions" ("tenant_uuid", "created_at" desc, "uuid" desc);`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    this.addSql('drop table if exists "transcriptions" cascade;');
  }
}
