import { Migration } from '@mikro-orm/migrations';

/** Delivery rows of agent webhooks. `agent_uuid`/`webhook_uuid` have no foreign keys: they belong to the agents plugin. */
export class Migration0001AgentWebhookDeliveries extends Migration {
  override up(): void {
    this.addSql(`create table "agent_webhook_deliveries" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "agent_uuid" uuid not null, "webhook_uuid" uuid not null, "event" text not null, "body" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "last_status_code" int null, "last_error" text null, "next_attempt_at" timestamptz null, "queue_token" uuid not null, primary key ("uuid"));`);
    this.addSql(`create index "agent_webhook_deliveries_tenant_uuid_index" on "agent_webhook_deliveries" ("tenant_uuid");`);
    this.addSql(`create index "agent_webhook_deliveries_webhook_created_index" on "agent_webhook_deliveries" ("tenant_uuid", "webhook_uuid", "created_at", "uuid");`);
    this.addSql(`alter table "agent_webhook_deliveries" add constraint "agent_webhook_deliveries_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "agent_webhook_deliveries" cascade;');
  }
}
