import { Migration } from '@mikro-orm/migrations';

/** Model usage per agent (the conversation runtime's calls say whose turn they are for). */
export class Migration0008LlmUsageAgent extends Migration {
  override up(): void {
    this.addSql(`alter table "llm_usage" add column "agent_uuid" uuid null;`);
    this.addSql(`create index "llm_usage_agent_uuid_created_at_index" on "llm_usage" ("agent_uuid", "created_at");`);
  }

  override down(): void {
    this.addSql(`drop index if exists "llm_usage_agent_uuid_created_at_index";`);
    this.addSql(`alter table "llm_usage" drop column "agent_uuid";`);
  }
}
