import { Migration } from '@mikro-orm/migrations';

const BASE = `"uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null`;

/** Tables of one tenant each: the tenant's rows go with it. */
function tenantTable(name: string, columns: string): string[] {
  return [
    `create table "${name}" (${BASE}, ${columns});`,
    `alter table "${name}" add constraint "${name}_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
    `create index "${name}_tenant_uuid_index" on "${name}" ("tenant_uuid");`,
  ];
}

/**
 * Channel connections (credentials sealed), inbound message ids (a provider's retry is handled once), the open
 * conversation of each customer address, and the provider's ids of messages sent.
 * No foreign keys into the agents or conversations plugins' tables: those rows go by
 * their own events.
 */
export class Migration0001Channels extends Migration {
  override up(): void {
    const statements = [
      ...tenantTable('channel_connections', `"provider" text not null, "label" text not null, "credentials" text not null, "config" jsonb not null`),
      ...tenantTable('channel_inbound_messages', `"channel_uuid" uuid not null, "external_id" text not null`),
      `create unique index "channel_inbound_messages_external_unique" on "channel_inbound_messages" ("channel_uuid", "external_id");`,
      ...tenantTable('channel_threads', `"channel_uuid" uuid not null, "address" text not null, "conversation_uuid" uuid not null`),
      `create unique index "channel_threads_address_unique" on "channel_threads" ("channel_uuid", "address");`,
      ...tenantTable('channel_deliveries', `"channel_uuid" uuid not null, "external_id" text null`),
      `create index "channel_deliveries_external_index" on "channel_deliveries" ("channel_uuid", "external_id");`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    for (const table of ['channel_deliveries', 'channel_threads', 'channel_inbound_messages', 'channel_connections']) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
