import { Migration } from '@mikro-orm/migrations';

/**
 * An inbound voice note's sender while the note waits for its transcript and turn
 * (`awaiting_from`): later messages of that sender on the channel wait for it, so a thread
 * is answered in arrival order. Few rows hold one at a time: the index covers only them.
 */
export class Migration0004InboundOrder extends Migration {
  override up(): void {
    this.addSql('alter table "channel_inbound_messages" add column "awaiting_from" text null;');
    this.addSql(
      'create index "channel_inbound_messages_awaiting_index" on "channel_inbound_messages" ("channel_uuid", "awaiting_from", "created_at") where "awaiting_from" is not null;',
    );
  }

  override down(): void {
    this.addSql('drop index if exists "channel_inbound_messages_awaiting_index";');
    this.addSql('alter table "channel_inbound_messages" drop column if exists "awaiting_from";');
  }
}
