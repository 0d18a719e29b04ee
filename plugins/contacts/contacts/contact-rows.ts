import type { EntityManager } from '@mikro-orm/postgresql';
import type { ContactFields } from './contact-view';

/**
 * The raw SQL side of contacts: the directory and bulk upserts skip the ORM's unit of
 * work (measured to cost more than the statements themselves at 1,000 rows), so they
 * name the tenant themselves.
 */

/** Every column of `contacts`, aliased to the entity's property names so rows read as ContactFields. */
export const CONTACT_COLUMNS =
  'c.uuid, c.name, c.surname, c.phone_number as "phoneNumber", c.email, c.timezone, c.country_code as "countryCode", ' +
  'c.primary_language as "primaryLanguage", c.company, c.city, c.lead_source as "leadSource", c.pipeline_stage as "pipelineStage", ' +
  'c.custom_fields as "customFields", c.opted_out as "optedOut", c.created_at as "createdAt", c.updated_at as "updatedAt"';

export type ContactRow = ContactFields;

/** Runs a statement in the EntityManager's transaction. `?` are parameters (arrays expand to lists). */
export function run<T>(em: EntityManager, text: string, params: readonly unknown[]): Promise<T[]> {
  return em.getConnection().execute(text, [...params], 'all', em.getTransactionContext());
}

/** The contacts of the current tenant among `uuids`, in one statement. */
export async function contactsByUuid(em: EntityManager, tenantUuid: string, uuids: readonly string[]): Promise<ContactRow[]> {
  // Something that is not a uuid names no contact (and would fail the cast).
  const wanted = [...new Set(uuids)].filter((uuid) => UUID.test(uuid));
  if (wanted.length === 0) return [];
  return run<ContactRow>(em, `select ${CONTACT_COLUMNS} from contacts c where c.tenant_uuid = ? and c.uuid = any(array[?]::uuid[])`, [tenantUuid, wanted]);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
