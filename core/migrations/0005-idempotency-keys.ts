import { Migration } from '@mikro-orm/migrations';

/**
 * The responses stored under an `Idempotency-Key` (core/http/idempotency.ts), one row
 * per caller and key, kept 24 hours; the expires_at index serves the retention job.
 */
export class Migration0005IdempotencyKeys extends Migration {
  override up(): void {
    this.addSql(
      `create table "idempotency_keys" ("scope" varchar(128) not null, "idempotency_key" varchar(255) not null, "tenant_uuid" uuid null, ` +
        `"request_hash" varchar(64) not null, "state" varchar(16) not null, "claim" uuid null, "lease_until" timestamptz null, ` +
        `"response_status" int null, "response_headers" jsonb null, "response_body" text null, "created_at" timestamptz not null, ` +
        `"expires_at" timestamptz not null, primary key ("scope", "idempotency_key"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "idempotency_keys" cascade;');
  }
}
