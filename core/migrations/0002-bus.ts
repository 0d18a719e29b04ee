import { Migration } from '@mikro-orm/migrations';

/** The bus: transactional outbox, per-consumer inbox, dead letters, and the relay's wake-up. */
export class Migration0002Bus extends Migration {
  override up(): void {
    this.addSql(
      `create table "bus_outbox" ("id" uuid not null, "message_id" uuid not null, "topic" varchar(255) not null, "payload" jsonb not null, ` +
        `"headers" jsonb not null, "tenant_uuid" uuid null, "dedupe_key" varchar(255) null, "consumer" varchar(255) null, ` +
        `"attempt" int not null default 1, "due_at" timestamptz not null, "locked_until" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "bus_outbox_due_at_index" on "bus_outbox" ("due_at");`);
    this.addSql(
      `create table "bus_inbox" ("consumer" varchar(255) not null, "message_id" uuid not null, "handled_at" timestamptz not null, ` +
        `primary key ("consumer", "message_id"));`,
    );
    this.addSql(`create index "bus_inbox_handled_at_index" on "bus_inbox" ("handled_at");`);
    this.addSql(
      `create table "bus_dead_letters" ("id" uuid not null, "message_id" uuid not null, "consumer" varchar(255) not null, ` +
        `"topic" varchar(255) not null, "payload" jsonb not null, "headers" jsonb not null, "tenant_uuid" uuid null, "attempts" int not null, ` +
        `"error" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`alter table "bus_dead_letters" add constraint "bus_dead_letters_consumer_message_id_unique" unique ("consumer", "message_id");`);
    // Every committed insert wakes the relays (NOTIFY is delivered at commit, never for a rollback).
    this.addSql(
      `create or replace function "bus_outbox_bus_outbox_notify_fn"() returns trigger as $$ ` +
        `begin perform pg_notify('switchboard_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "bus_outbox_notify" AFTER INSERT on "bus_outbox" for each STATEMENT execute function "bus_outbox_bus_outbox_notify_fn"();`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "bus_outbox" cascade;');
    this.addSql('drop function if exists "bus_outbox_bus_outbox_notify_fn"();');
    this.addSql('drop table if exists "bus_inbox" cascade;');
    this.addSql('drop table if exists "bus_dead_letters" cascade;');
  }
}
