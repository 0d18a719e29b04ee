import { Migration } from '@mikro-orm/migrations';

/**
 * OAuth2 connections: a connection's status (`needs_reauth` once a refresh is refused),
 * and the authorizations under way, each bound to its tenant and the token that started
 * it, read back by the `state` the authorization server returns (stored hashed).
 */
export class Migration0004OAuthConnections extends Migration {
  override up(): void {
    this.addSql(`alter table "flow_connections" add column "status" text not null default 'connected', add column "status_message" text null;`);
    this.addSql(`create table "flow_oauth_states" (
      "uuid" uuid not null primary key,
      "tenant_uuid" uuid not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "state_hash" text not null,
      "app_uid" text not null,
      "label" text not null,
      "code_verifier" text null,
      "redirect_uri" text not null,
      "return_to" text null,
      "started_by" text not null,
      "expires_at" timestamptz not null
    );`);
    this.addSql('alter table "flow_oauth_states" add constraint "flow_oauth_states_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;');
    this.addSql('create index "flow_oauth_states_tenant_uuid_index" on "flow_oauth_states" ("tenant_uuid");');
    this.addSql('create unique index "flow_oauth_states_hash_index" on "flow_oauth_states" ("state_hash");');
    this.addSql('create index "flow_oauth_states_tenant_index" on "flow_oauth_states" ("tenant_uuid", "expires_at");');
  }

  override down(): void {
    this.addSql('drop table "flow_oauth_states";');
    this.addSql('alter table "flow_connections" drop column "status", drop column "status_message";');
  }
}
