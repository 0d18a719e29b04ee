import { Migration } from '@mikro-orm/migrations';

export class Migration0002ContactMemories extends Migration {
  override up(): void {
    this.addSql(
      `create table "contact_memories" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, ` +
        `"agent_uuid" uuid not null, "contact_uuid" uuid not null, "session_uuid" uuid not null, "conversation_uuid" uuid not null, "summary" text not null, ` +
        `"fields" jsonb not null, "expires_at" timestamptz not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "contact_memories_tenant_uuid_index" on "contact_memories" ("tenant_uuid");`);
    this.addSql(`alter table "contact_memories" add constraint "contact_memories_session_uuid_unique" unique ("session_uuid");`);
    this.addSql(`create index "contact_memories_contact_agent_index" on "contact_memories" ("contact_uuid", "agent_uuid", "created_at");`);
    this.addSql(`create index "contact_memories_expires_at_index" on "contact_memories" ("expires_at");`);
    this.addSql(
      `alter table "contact_memories" add constraint "contact_memories_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "contact_memories" cascade;');
  }
}
