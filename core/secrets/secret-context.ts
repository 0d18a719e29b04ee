/**
 * Where a secret lives: the tenant that owns it and the entity/field it is stored in.
 * It is bound to the ciphertext as AES-GCM associated data, so a ciphertext copied to
 * another tenant's row, or from a webhook secret into a trunk password, fails to
 * decrypt instead of silently handing one owner's credential to another.
 *
 * `entity` and `field` are stable logical names (`agent_webhook`, `secret`), not
 * table or column names, so renaming a table does not orphan its secrets.
 */
export interface SecretContext {
  tenantUuid: string;
  entity: string;
  field: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,62}$/;

/**
 * `tenantUuid|entity|field` as bytes. The parts are validated so that none can contain
 * the separator (two different contexts can never encode to the same bytes), and the
 * uuid is lower-cased because PostgreSQL prints uuids in lower case: a caller holding
 * an upper-case copy must still open what was sealed with the lower-case one.
 */
export function associatedData(context: SecretContext): Buffer {
  if (typeof context?.tenantUuid !== 'string' || !UUID.test(context.tenantUuid)) {
    throw new Error('secret context: tenantUuid must be a uuid');
  }
  for (const part of ['entity', 'field'] as const) {
    if (typeof context[part] !== 'string' || !NAME.test(context[part])) {
      throw new Error(`secret context: ${part} must be a name of letters, digits, "_", "." or "-" (got ${JSON.stringify(context[part])})`);
    }
  }
  return Buffer.from(`${context.tenantUuid.toLowerCase()}|${context.entity}|${context.field}`, 'utf8');
}

/** For error messages: which secret failed, without any of its content. */
export function describeContext(context: SecretContext): string {
  return `${context.entity}.${context.field} of tenant ${context.tenantUuid}`;
}
