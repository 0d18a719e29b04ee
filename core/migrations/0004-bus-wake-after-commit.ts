import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's insert trigger goes: each process wakes its own relay after a
 * publishing transaction commits (core/bus/outbox-commits.ts), and a process without a
 * relay sends one NOTIFY after the commit instead. A NOTIFY inside the transaction made
 * PostgreSQL serialize the commits of all publishing transactions.
 */
export class Migration0004BusWakeAfterCommit extends Migration {
  override up(): void {
    this.addSql('drop trigger if exists "bus_outbox_notify" on "bus_outbox";');
    this.addSql('drop function if exists "bus_outbox_bus_outbox_notify_fn"();');
  }

  override down(): void {
    this.addSql(
      `create or replace function "bus_outbox_bus_outbox_notify_fn"() returns trigger as $$ ` +
        `begin perform pg_notify('switchboard_outbox', ''); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "bus_outbox_notify" AFTER INSERT on "bus_outbox" for each STATEMENT execute function "bus_outbox_bus_outbox_notify_fn"();`,
    );
  }
}
