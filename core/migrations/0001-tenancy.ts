import { Migration } from '@mikro-orm/migrations';

/** Tenants and their API tokens (only token hashes are stored). */
export class Migration0001Tenancy extends Migration {
  override up(): void {
    this.addSql(
      `create table "tenants" ("uuid" uuid not null, "slug" varchar(63) not null, "name" varchar(255) not null, ` +
        `"created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("uuid"));`,
    );
    this.addSql(`alter table "tenants" add constraint "tenants_slug_unique" unique ("slug");`);
    this.addSql(
      `create table "api_tokens" ("uuid" uuid not null, "tenant_uuid" uuid not null, "name" varchar(255) not null, ` +
        `"token_hash" varchar(64) not null, "scopes" jsonb not null, "created_at" timestamptz not null, ` +
        `"revoked_at" timestamptz null, primary key ("uuid"));`,
    );
    this.addSql(`alter table "api_tokens" add constraint "api_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(
      `alter table "api_tokens" add constraint "api_tokens_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "api_tokens" cascade;');
    this.addSql('drop table if exists "tenants" cascade;');
  }
}
