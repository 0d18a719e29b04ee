import type { EntityManager } from '@mikro-orm/postgresql';
import type { Listing } from '../entities';
import type { CampaignStatus } from '../entities/campaign.entity';
import type { ListingJson } from './listing-schemas';
import { run } from './sql';

/** The listings as the API shows them: their pool's campaign (and whether it runs) and contact counts, in two queries for the whole page. */
export async function renderListings(em: EntityManager, tenantUuid: string, listings: readonly Listing[]): Promise<ListingJson[]> {
  if (listings.length === 0) return [];
  const poolUuids = [...new Set(listings.map((listing) => listing.poolUuid).filter((uuid): uuid is string => uuid !== null))];
  const pools =
    poolUuids.length === 0
      ? []
      : await run<{ uuid: string; campaign_uuid: string; status: CampaignStatus }>(
          em,
          'select p.uuid, p.campaign_uuid, c.status from pools p join campaigns c on c.uuid = p.campaign_uuid where p.tenant_uuid = ? and p.uuid = any(array[?]::uuid[])',
          [tenantUuid, poolUuids],
        );
  const poolOf = new Map(pools.map((row) => [row.uuid, row]));
  const counts = await run<{ listing_uuid: string; contacts: string | number }>(
    em,
    'select listing_uuid, count(*) as contacts from listing_contacts where tenant_uuid = ? and listing_uuid = any(array[?]::uuid[]) group by listing_uuid',
    [tenantUuid, listings.map((listing) => listing.uuid)],
  );
  const countOf = new Map(counts.map((row) => [row.listing_uuid, Number(row.contacts)]));
  return listings.map((listing) => {
    const pool = listing.poolUuid ? poolOf.get(listing.poolUuid) : undefined;
    return {
      uuid: listing.uuid,
      name: listing.name,
      description: listing.description,
      pool_uuid: listing.poolUuid,
      campaign_uuid: pool?.campaign_uuid ?? null,
      running: pool?.status === 'active',
      contact_count: countOf.get(listing.uuid) ?? 0,
      created_at: listing.createdAt.toISOString(),
      updated_at: listing.updatedAt.toISOString(),
    };
  });
}

export async function renderListing(em: EntityManager, listing: Listing): Promise<ListingJson> {
  const [json] = await renderListings(em, listing.tenantUuid, [listing]);
  return json;
}
