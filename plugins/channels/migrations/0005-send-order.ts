import { Migration } from '@mikro-orm/migrations';

/**
 * A customer's thread gets the agent's messages in the order they were queued
 * (outbound/send-order.ts): each delivery knows its `recipient` and its place (`seq`),
 * is `settled_at` once sent or failed for good, and a send that came while an earlier one
 * of the thread was unsettled waits in `held_payload`. Rows sent before this are settled;
 * the others have no recipient and so hold nothing up. The index covers the unsettled
 * rows only: the few still on their way.
 */
export class Migration0005SendOrder extends Migration {
  override up(): void {
    this.addSql(
      'alter table "channel_deliveries" add column "recipient" text null, add column "seq" bigint generated always as identity, add column "settled_at" timestamptz null, add column "held_payload" jsonb null;',
    );
    this.addSql('update "channel_deliveries" set "settled_at" = now() where "external_id" is not null;');
    this.addSql(
      'create index "channel_deliveries_unsettled_index" on "channel_deliveries" ("tenant_uuid", "channel_uuid", "recipient", "seq") where "settled_at" is null;',
    );
  }

  override down(): void {
    this.addSql('drop index if exists "channel_deliveries_unsettled_index";');
    this.addSql(
      'alter table "channel_deliveries" drop column if exists "held_payload", drop column if exists "settled_at", drop column if exists "seq", drop column if exists "recipient";',
    );
  }
}
