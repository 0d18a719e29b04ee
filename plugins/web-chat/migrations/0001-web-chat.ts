import { Migration } from '@mikro-orm/migrations';

/** The visitors of web chat conversations (entities/web-chat-visitor.entity.ts). */
export class Migration0001WebChat extends Migration {
  override up(): void {
    this.addSql(`create table "web_chat_visitors" ("uuid" uuid not null, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "conversation_uuid" uuid not null, "channel_uuid" uuid not null, "token_hash" varchar(64) not null, primary key ("uuid"));`);
    this.addSql(`create index "web_chat_visitors_tenant_uuid_index" on "web_chat_visitors" ("tenant_uuid");`);
    this.addSql(`alter table "web_chat_visitors" add constraint "web_chat_visitors_conversation_uuid_unique" unique ("conversation_uuid");`);
    this.addSql(`create index "web_chat_visitors_channel_uuid_index" on "web_chat_visitors" ("channel_uuid");`);
    this.addSql(`alter table "web_chat_visitors" add constraint "web_chat_visitors_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`);
  }
  override down(): void {
    this.addSql('drop table if exists "web_chat_visitors" cascade;');
  }
}
