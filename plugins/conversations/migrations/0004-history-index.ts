import { Migration } from '@mikro-orm/migrations';

/**
 * A turn's history read (`where tenant_uuid = $1 and conversation_uuid = $2 order by
 * created_at desc, uuid desc limit $3`) with both keys in one index: with only the
 * conversation in it, the planner, its statistics a little behind a busy table, ANDed it
 * with the tenant's export index and read every index entry of the tenant on each turn
 * (bench/runtime: 22,000 entries, 5 ms under load, growing with the tenant's messages).
 * The conversation stays first, for the delete that cascades from a conversation. The
 * index is built inside the migration's transaction, so writes to the table wait for it.
 */
export class Migration0004HistoryIndex extends Migration {
  override up(): void {
    this.addSql('drop index if exists "conversation_messages_conversation_index";');
    this.addSql(`create index "conversation_messages_conversation_index" on "conversation_messages" ("conversation_uuid", "tenant_uuid", "created_at", "uuid");`);
  }
  override down(): void {
    this.addSql('drop index if exists "conversation_messages_conversation_index";');
    this.addSql(`create index "conversation_messages_conversation_index" on "conversation_messages" ("conversation_uuid", "created_at", "uuid");`);
  }
}
