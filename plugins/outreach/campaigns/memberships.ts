import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, newUuid } from '../../../core';
import { run } from './sql';

/**
 * Adds contacts to a pool or a listing in one statement; those already there are left
 * as they are (`on conflict do nothing`, also against a concurrent add). Returns the
 * contacts it added, which are the ones that may need new tasks.
 */
type MembershipTable = 'pool_items' | 'listing_contacts';
type MembershipOwner = 'pool_uuid' | 'listing_uuid';

async function addMembers(em: EntityManager, table: MembershipTable, owner: MembershipOwner, tenantUuid: string, ownerUuid: string, contactUuids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(contactUuids)];
  if (unique.length === 0) return [];
  const now = new Date();
  const rows = await boundQuery<{ contact_uuid: string }>(
    em,
    `insert into ${table} (uuid, tenant_uuid, created_at, updated_at, ${owner}, contact_uuid) ` +
      'select x.uuid, $1, $2::timestamptz, $2::timestamptz, $3, x.contact_uuid from unnest($4::uuid[], $5::uuid[]) as x(uuid, contact_uuid) ' +
      `on conflict (${owner}, contact_uuid) do nothing returning contact_uuid`,
    [tenantUuid, now, ownerUuid, unique.map(() => newUuid()), unique],
  );
  return rows.map((row) => row.contact_uuid);
}

export const addToPool = (em: EntityManager, tenantUuid: string, poolUuid: string, contactUuids: readonly string[]) =>
  addMembers(em, 'pool_items', 'pool_uuid', tenantUuid, poolUuid, contactUuids);

export const addToListing = (em: EntityManager, tenantUuid: string, listingUuid: string, contactUuids: readonly string[]) =>
  addMembers(em, 'listing_contacts', 'listing_uuid', tenantUuid, listingUuid, contactUuids);

/** The contacts of a listing, oldest membership first. */
export async function listingContactUuids(em: EntityManager, tenantUuid: string, listingUuid: string): Promise<string[]> {
  const rows = await run<{ contact_uuid: string }>(em, 'select contact_uuid from listing_contacts where tenant_uuid = ? and listing_uuid = ? order by uuid', [tenantUuid, listingUuid]);
  return rows.map((row) => row.contact_uuid);
}

/** A page of a pool's or listing's members, in the order they were added, and how many it has. */
async function memberPage(
  em: EntityManager,
  table: MembershipTable,
  owner: MembershipOwner,
  tenantUuid: string,
  ownerUuid: string,
  window: { limit: number; offset: number },
): Promise<{ items: Array<{ contact_uuid: string; added_at: string }>; total: number }> {
  const rows = await run<{ contact_uuid: string; created_at: Date }>(
    em,
    `select contact_uuid, created_at from ${table} where tenant_uuid = ? and ${owner} = ? order by uuid limit ? offset ?`,
    [tenantUuid, ownerUuid, window.limit, window.offset],
  );
  const [{ total }] = await run<{ total: string | number }>(em, `select count(*) as total from ${table} where tenant_uuid = ? and ${owner} = ?`, [tenantUuid, ownerUuid]);
  return { items: rows.map((row) => ({ contact_uuid: row.contact_uuid, added_at: new Date(row.created_at).toISOString() })), total: Number(total) };
}

export const poolMemberPage = (em: EntityManager, tenantUuid: string, poolUuid: string, window: { limit: number; offset: number }) =>
  memberPage(em, 'pool_items', 'pool_uuid', tenantUuid, poolUuid, window);

export const listingMemberPage = (em: EntityManager, tenantUuid: string, listingUuid: string, window: { limit: number; offset: number }) =>
  memberPage(em, 'listing_contacts', 'listing_uuid', tenantUuid, listingUuid, window);
