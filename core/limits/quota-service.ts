import type { EntityManager } from '@mikro-orm/postgresql';
import { currentTenant } from '../context/request-context';
import { boundQuery } from '../data/bound-query';
import { QuotaExceededError } from './quota-errors';
import { quotaDefaults, quotaVersion, tenantQuotaOverrides, type EffectiveQuotas, type QuotaName } from './quotas';

/**
 * What a tenant would hold after the creation being checked. A function is called only when
 * the quota has a limit (so an unlimited tenant pays for no count), with that limit, so a
 * count can stop early (`select count(*) from (select 1 ... limit $limit + 1)`).
 */
export type QuotaCount = number | ((limit: number) => Promise<number>);

export interface QuotaService {
  /**
   * Throws a 429 `QuotaExceededError` ("Quota exceeded: agents (limit 50)") when the tenant
   * (the current one unless named) would hold more than its limit of `quota`. Call it at the
   * moment of creation with the request's EntityManager: inside a transaction it first takes
   * a transaction-scoped advisory lock on (tenant, quota), so two concurrent creations cannot
   * both pass on the same count.
   */
  check(em: EntityManager, quota: QuotaName, wouldHave: QuotaCount, tenantUuid?: string): Promise<void>;
  /** The limit in force (0: unlimited). */
  limit(em: EntityManager, quota: QuotaName, tenantUuid?: string): Promise<number>;
}

/**
 * How long a tenant's overrides read from `tenant_quotas` are trusted. Creations and execution
 * starts need them at once, and one primary-key read per creation is cheap, but not free on a
 * hot path (every flow execution's start). A change made in this process is seen at once
 * (setTenantQuotas bumps quotaVersion); one made in another process within a second.
 */
const OVERRIDES_TTL_MS = 1_000;
const MAX_CACHED_TENANTS = 10_000;

interface CachedOverrides {
  overrides: Partial<EffectiveQuotas>;
  readAt: number;
  version: number;
}

export function createQuotaService(): QuotaService {
  const cache = new Map<string, CachedOverrides>();
  const overridesOf = async (em: EntityManager, tenant: string): Promise<Partial<EffectiveQuotas>> => {
    const version = quotaVersion(em);
    const cached = cache.get(tenant);
    if (cached && cached.version === version && Date.now() - cached.readAt < OVERRIDES_TTL_MS) return cached.overrides;
    const overrides = await tenantQuotaOverrides(em, tenant);
    cache.delete(tenant);
    if (cache.size >= MAX_CACHED_TENANTS) cache.delete(cache.keys().next().value as string);
    cache.set(tenant, { overrides, readAt: Date.now(), version });
    return overrides;
  };
  const limit = async (em: EntityManager, quota: QuotaName, tenantUuid?: string): Promise<number> => {
    const tenant = tenantUuid ?? requireTenant();
    return (await overridesOf(em, tenant))[quota] ?? quotaDefaults(em)[quota];
  };
  return {
    limit,
    async check(em, quota, wouldHave, tenantUuid) {
      const tenant = tenantUuid ?? requireTenant();
      const max = await limit(em, quota, tenant);
      if (max === 0) return;
      if (em.isInTransaction()) await boundQuery(em, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [`quota:${tenant}:${quota}`]);
      const total = typeof wouldHave === 'number' ? wouldHave : await wouldHave(max);
      if (total > max) throw new QuotaExceededError(quota, max);
    },
  };
}

function requireTenant(): string {
  const tenant = currentTenant();
  if (!tenant) throw new Error('quotas.check needs a tenant: call it in a tenant’s work or name the tenant');
  return tenant.uuid;
}
