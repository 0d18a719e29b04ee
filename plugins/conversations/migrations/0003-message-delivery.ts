import { Migration } from '@mikro-orm/migrations';

/** What became of agent messages sent through a channel (the channels plugin); null for every other message. */
export class Migration0003MessageDelivery extends Migration {
  override up(): void {
    this.addSql(`alter table "conversation_messages" add column "delivery_status" text null, add column "delivery_error" text null;`);
  }
  override down(): void {
    this.addSql(`alter table "conversation_messages" drop column "delivery_status", drop column "delivery_error";`);
  }
}
