import { Migration } from '@mikro-orm/migrations';

/**
 * Tenant lifecycle: a tenant's status (active, suspended, or being deleted), the
 * deletion jobs the admin API answers with, and the outbox mark of messages held
 * while their tenant is suspended (released at once when it is reactivated).
 */
export class Migration0006TenantLifecycle extends Migration {
  override up(): void {
    // A constant default: PostgreSQL adds the column without rewriting the table.
    this.addSql(`alter table "tenants" add column "status" varchar(16) not null default 'active';`);
    // No foreign key to tenants: the job outlives the tenant it deletes.
    this.addSql(
      `create table "tenant_deletions" ("uuid" uuid not null, "tenant_uuid" uuid not null, "tenant_slug" varchar(63) not null, ` +
        `"status" varchar(16) not null default 'pending', "deleted_rows" bigint not null default '0', "error" text null, "created_at" timestamptz not null, ` +
        `"started_at" timestamptz null, "finished_at" timestamptz null, primary key ("uuid"));`,
    );
    this.addSql(`create index "tenant_deletions_tenant_uuid_index" on "tenant_deletions" ("tenant_uuid");`);
    this.addSql(`alter table "bus_outbox" add column "held" boolean not null default false;`);
  }

  override down(): void {
    this.addSql('alter table "bus_outbox" drop column if exists "held";');
    this.addSql('drop table if exists "tenant_deletions" cascade;');
    this.addSql('alter table "tenants" drop column if exists "status";');
  }
}
