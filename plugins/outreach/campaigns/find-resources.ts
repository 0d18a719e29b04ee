import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, findByUuid, type TenantScopedEntity } from '../../../core';
import { Campaign, Listing, OutreachRule, Pool } from '../entities';

export const RULE_NOT_FOUND = 'Rule not found';
export const CAMPAIGN_NOT_FOUND = 'Campaign not found';
export const POOL_NOT_FOUND = 'Pool not found';
export const LISTING_NOT_FOUND = 'Listing not found';
export const POOL_ITEM_NOT_FOUND = 'Contact is not in this pool';

/**
 * How a row is read before a change:
 * - `update`: `FOR UPDATE`, for a change of the row itself (a campaign's status);
 * - `share`: `FOR SHARE`, to keep the row (a campaign's status) as read until the
 *   transaction ends, while others reading it the same way go on in parallel.
 * Both re-read the newest committed version after waiting.
 */
export type RowLock = 'update' | 'share';

type EntityClass<T> = abstract new (...args: any[]) => T;

async function findOr404<T extends TenantScopedEntity>(em: EntityManager, entity: EntityClass<T>, uuid: string, message: string, lock?: RowLock): Promise<T> {
  const row = lock
    ? await em.findOne(entity as never, { uuid } as never, { lockMode: lock === 'update' ? LockMode.PESSIMISTIC_WRITE : LockMode.PESSIMISTIC_READ, refresh: true })
    : await findByUuid(em, entity, uuid);
  if (!row) throw new NotFoundError(message);
  return row as T;
}

export const findRule = (em: EntityManager, uuid: string, lock?: RowLock) => findOr404(em, OutreachRule, uuid, RULE_NOT_FOUND, lock);
export const findCampaign = (em: EntityManager, uuid: string, lock?: RowLock) => findOr404(em, Campaign, uuid, CAMPAIGN_NOT_FOUND, lock);
export const findPool = (em: EntityManager, uuid: string, lock?: RowLock) => findOr404(em, Pool, uuid, POOL_NOT_FOUND, lock);
export const findListing = (em: EntityManager, uuid: string, lock?: RowLock) => findOr404(em, Listing, uuid, LISTING_NOT_FOUND, lock);
