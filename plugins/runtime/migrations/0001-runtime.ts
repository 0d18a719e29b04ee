import { Migration } from '@mikro-orm/migrations';

export class Migration0001Runtime extends Migration {
  override up(): void {
    this.addSql(
      `create table "runtime_turn_leases" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null, "conversation_uuid" uuid not null, "holder" varchar(64) not null, "expires_at" timestamptz not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "runtime_turn_leases_tenant_uuid_index" on "runtime_turn_leases" ("tenant_uuid");`);
    this.addSql(`alter table "runtime_turn_leases" add constraint "runtime_turn_leases_conversation_uuid_unique" unique ("conversation_uuid");`);
    this.addSql(
      `alter table "runtime_turn_leases" add constraint "runtime_turn_leases_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "runtime_turn_leases" cascade;');
  }
}
