import { Migration } from '@mikro-orm/migrations';

/** One row per model call: tenant, provider, model, purpose, tokens, duration, outcome. */
export class Migration0003LlmUsage extends Migration {
  override up(): void {
    this.addSql(
      `create table "llm_usage" ("uuid" uuid not null, "tenant_uuid" uuid null, "provider" varchar(255) not null, "model" varchar(255) null, ` +
        `"purpose" varchar(255) null, "prompt_tokens" int null, "completion_tokens" int null, "total_tokens" int null, "duration_ms" int not null, ` +
        `"status" varchar(16) not null, "created_at" timestamptz not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "llm_usage_tenant_uuid_created_at_index" on "llm_usage" ("tenant_uuid", "created_at");`);
    this.addSql(
      `alter table "llm_usage" add constraint "llm_usage_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "llm_usage" cascade;');
  }
}
