import { Migration } from '@mikro-orm/migrations';

/**
 * Rate limits and quotas (core/limits): the shared token buckets every `serve` process
 * leases from, and each tenant's quota overrides.
 */
export class Migration0007Limits extends Migration {
  override up(): void {
    // UNLOGGED: no WAL for a row rewritten on every lease; after a crash the buckets start full again.
    this.addSql(`create unlogged table "rate_buckets" ("key" varchar(255) not null, "tokens" double precision not null, "updated_at" timestamptz not null, "granted" int not null, primary key ("key"));`);
    this.addSql(`create table "tenant_quotas" ("tenant_uuid" uuid not null, "values" jsonb not null, "updated_at" timestamptz not null, primary key ("tenant_uuid"));`);
    this.addSql(
      `alter table "tenant_quotas" add constraint "tenant_quotas_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on update cascade on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "tenant_quotas" cascade;');
    this.addSql('drop table if exists "rate_buckets" cascade;');
  }
}
