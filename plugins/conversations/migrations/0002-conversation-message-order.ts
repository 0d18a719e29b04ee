import { Migration } from '@mikro-orm/migrations';

/**
 * A conversation's messages in order, for `GET /conversations/{uuid}/messages` and the
 * agent runtime's history (read on every turn): without it both scan the session
 * index or the tenant's export index. `transferred` and `tool` need no change: status
 * and message_type are text columns without check constraints.
 */
export class Migration0002ConversationMessageOrder extends Migration {
  override up(): void {
    this.addSql(`create index "conversation_messages_conversation_index" on "conversation_messages" ("conversation_uuid", "created_at", "uuid");`);
  }
  override down(): void {
    this.addSql('drop index if exists "conversation_messages_conversation_index";');
  }
}
