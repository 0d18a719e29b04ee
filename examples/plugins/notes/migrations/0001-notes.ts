import { Migration } from '@mikro-orm/migrations';

export class Migration0001Notes extends Migration {
  override up(): void {
    this.addSql(
      `create table "example_notes" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, ` +
        `"updated_at" timestamptz not null, "title" varchar(200) not null, "body" text not null default '', "extras" jsonb not null, primary key ("uuid"));`,
    );
    this.addSql(`create index "example_notes_tenant_uuid_index" on "example_notes" ("tenant_uuid");`);
    this.addSql(
      `alter table "example_notes" add constraint "example_notes_tenant_uuid_foreign" foreign key ("tenant_uuid") ` +
        `references "tenants" ("uuid") on delete cascade;`,
    );
  }

  override down(): void {
    this.addSql('drop table if exists "example_notes" cascade;');
  }
}
