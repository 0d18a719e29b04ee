import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from '../entities';
import type { PoolJson } from './pool-schemas';
import { run } from './sql';

/** The pools as the API shows them, with their contact counts in one query for the whole page. */
export async function renderPools(em: EntityManager, tenantUuid: string, pools: readonly Pool[]): Promise<PoolJson[]> {
  if (pools.length === 0) return [];
  const counts = await run<{ pool_uuid: string; contacts: string | number }>(
    em,
    'select pool_uuid, count(*) as contacts from pool_items where tenant_uuid = ? and pool_uuid = any(array[?]::uuid[]) group by pool_uuid',
    [tenantUuid, pools.map((pool) => pool.uuid)],
  );
  const countOf = new Map(counts.map((row) => [row.pool_uuid, Number(row.contacts)]));
  return pools.map((pool) => ({
    uuid: pool.uuid,
    campaign_uuid: pool.campaignUuid,
    name: pool.name,
    contact_count: countOf.get(pool.uuid) ?? 0,
    created_at: pool.createdAt.toISOString(),
    updated_at: pool.updatedAt.toISOString(),
  }));
}

export async function renderPool(em: EntityManager, pool: Pool): Promise<PoolJson> {
  const [json] = await renderPools(em, pool.tenantUuid, [pool]);
  return json;
}
