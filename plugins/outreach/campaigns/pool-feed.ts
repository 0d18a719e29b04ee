import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from '../entities';
import { createCampaignTasks, type CampaignTaskServices } from './campaign-tasks';
import { findCampaign } from './find-resources';
import { addToPool } from './memberships';

export interface PoolFeedResult {
  /** Contacts that were not in the pool yet. */
  added: number;
  /** Tasks created for them (the campaign is active). */
  tasksCreated: number;
}

/**
 * Adds contacts to a pool, and when its campaign is running (`active`) creates tasks for
 * the newly added eligible ones at once. The campaign row is held `FOR SHARE` first, so
 * an activation, pause or completion (`FOR UPDATE`) is either wholly before this (its
 * status decides here) or wholly after (it sees these pool items): no contact falls
 * between an import and an add.
 */
export async function feedPool(
  services: CampaignTaskServices,
  em: EntityManager,
  tenantUuid: string,
  pool: Pool,
  contactUuids: readonly string[],
  /** Contacts this transaction created (see `addToPool`). */
  createdNow?: ReadonlySet<string>,
): Promise<PoolFeedResult> {
  const campaign = await findCampaign(em, pool.campaignUuid, 'share');
  const added = await addToPool(em, tenantUuid, pool.uuid, contactUuids, createdNow);
  const tasksCreated = campaign.status === 'active' && added.length > 0 ? await createCampaignTasks(services, em, campaign, { poolUuid: pool.uuid, contactUuids: added }) : 0;
  return { added: added.length, tasksCreated };
}
