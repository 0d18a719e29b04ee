import { associatedData, type SecretContext } from './secret-context';

/**
 * A database column that holds encrypted secrets, declared once by the plugin that
 * owns it and used both to seal values and to rotate them:
 *
 *   export const webhookSecret = defineSecretColumn({ table: 'agent_webhooks', column: 'secret', entity: 'agent_webhook', field: 'secret' });
 *   // init:     secrets.declareColumn(webhookSecret);
 *   // writing:  webhook.secret = secrets.encrypt(value, webhookSecret.context(webhook.tenantUuid));
 *   // reading:  secrets.decrypt(webhook.secret, webhookSecret.context(webhook.tenantUuid));
 *
 * Why not a MikroORM custom type that encrypts on flush? The associated data needs the
 * row's tenant and the entity/field, and a custom type's conversion sees only the value.
 * Reaching for them through the request context would silently bind the wrong tenant
 * in admin or background work. An explicit call in the service, with the context taken
 * from this one declaration, keeps the write path, the read path and `secrets rotate`
 * agreeing on the same entity/field, and makes every place that handles plaintext
 * visible in the code. The column is a plain nullable `text`.
 */
export interface SecretColumnSpec {
  /** Table name as in the migration, e.g. `agent_webhooks`. */
  table: string;
  /** The column holding `sb1:...` values (null when the row has no secret). */
  column: string;
  /** Logical entity name bound into the ciphertext, e.g. `agent_webhook`. Never change it. */
  entity: string;
  /** Logical field name bound into the ciphertext, e.g. `secret`. Never change it. */
  field: string;
  /** Primary key column, used to walk the table in order; default `uuid`. */
  idColumn?: string;
  /** Owning tenant column; default `tenant_uuid` (what TenantScopedEntity maps). */
  tenantColumn?: string;
}

export interface SecretColumn extends Readonly<Required<SecretColumnSpec>> {
  /** The context a value of this column is sealed with, for the row's tenant. */
  context(tenantUuid: string): SecretContext;
}

/** Plain lower-case SQL identifiers only: they are quoted into rotation's SQL. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function defineSecretColumn(spec: SecretColumnSpec): SecretColumn {
  const column = { idColumn: 'uuid', tenantColumn: 'tenant_uuid', ...spec };
  for (const key of ['table', 'column', 'idColumn', 'tenantColumn'] as const) {
    if (!IDENTIFIER.test(column[key])) throw new Error(`secret column ${key} "${column[key]}" must be a lower-case SQL identifier`);
  }
  // Validates entity and field the way encryption will, so a bad name fails at declaration.
  associatedData({ tenantUuid: '00000000-0000-0000-0000-000000000000', entity: column.entity, field: column.field });
  return Object.freeze({
    ...column,
    context: (tenantUuid: string): SecretContext => ({ tenantUuid, entity: column.entity, field: column.field }),
  });
}
