import { Migration } from '@mikro-orm/migrations';

const BASE = `"uuid" uuid not null primary key, "tenant_uuid" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null`;

/** Tables of one tenant each: the tenant's rows go with it. Row-level security is added by the kernel after every migration. */
function tenantTable(name: string, columns: string): string[] {
  return [
    `create table "${name}" (${BASE}, ${columns});`,
    `alter table "${name}" add constraint "${name}_tenant_uuid_foreign" foreign key ("tenant_uuid") references "tenants" ("uuid") on delete cascade;`,
    `create index "${name}_tenant_uuid_index" on "${name}" ("tenant_uuid");`,
  ];
}

const NORMALIZER = `"normalizer" jsonb not null`;
const AUTH = `"auth_username" text null, "auth_password" text null`;

/**
 * PBX extension connectors and SIP trunk connections, passwords sealed (`auth_password`).
 * No foreign key into the agents plugin's table: a deleted agent is let go by its event
 * (`agent.deleted`), leaving the row without an agent and inactive.
 */
export class Migration0001Telephony extends Migration {
  override up(): void {
    const statements = [
      ...tenantTable(
        'pbx_extension_connectors',
        `"name" text not null, "status" text not null, "phone_number" text null, "agent_uuid" uuid null, "connection_type" text not null, "setup_mode" text not null, ` +
          `"registrar_server" text not null, "port" int not null, "username_extension" text not null, "allowed_ip" jsonb not null, ` +
          `"separate_credentials" boolean not null default false, ${AUTH}, ${NORMALIZER}`,
      ),
      `create index "pbx_extension_connectors_agent_index" on "pbx_extension_connectors" ("tenant_uuid", "agent_uuid");`,
      `create index "pbx_extension_connectors_phone_number_index" on "pbx_extension_connectors" ("tenant_uuid", "phone_number");`,
      ...tenantTable(
        'sip_trunk_connections',
        `"name" text not null, "status" text not null, "agent_uuid" uuid null, "phone_numbers" jsonb not null, "gateway" text not null, "secondary_gateway" text null, ` +
          `"port" int not null, "transport" text not null, ${AUTH}, "allowed_ips" jsonb not null, "codecs" jsonb not null, ${NORMALIZER}`,
      ),
      `create index "sip_trunk_connections_agent_index" on "sip_trunk_connections" ("tenant_uuid", "agent_uuid");`,
    ];
    for (const statement of statements) this.addSql(statement);
  }

  override down(): void {
    for (const table of ['sip_trunk_connections', 'pbx_extension_connectors']) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
