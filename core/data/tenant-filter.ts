import type { EventSubscriber, FlushEventArgs, FilterDef } from '@mikro-orm/core';
import { currentTenant } from '../context/request-context';
import { TenantScopedEntity } from './tenant-scoped-entity';

export const TENANT_FILTER = 'tenant';

export class MissingTenantError extends Error {
  constructor(entityName: string | undefined) {
    super(
      `no tenant in context for ${entityName ?? 'a tenant-scoped entity'}: run inside a request or a tenant's work, ` +
        `or pass filters: { ${TENANT_FILTER}: false } for deliberate cross-tenant work`,
    );
  }
}

/**
 * On by default for every tenant-scoped entity. It reads the tenant from the work
 * context rather than filter params, so a forgotten `setFilterParams` cannot widen a
 * query: with no tenant in context the query fails instead of returning every tenant's rows.
 */
export function tenantFilter(entityNames: string[]): FilterDef {
  return {
    name: TENANT_FILTER,
    default: true,
    args: false,
    entity: entityNames,
    cond: (_args: unknown, _type: unknown, _em: unknown, _options: unknown, entityName?: string) => {
      const tenant = currentTenant();
      if (!tenant) throw new MissingTenantError(entityName);
      return { tenantUuid: tenant.uuid };
    },
  } as unknown as FilterDef;
}

/** Stamps new tenant-scoped rows with the current tenant, and refuses to write one into another tenant. */
export class TenantStampSubscriber implements EventSubscriber {
  async onFlush({ uow }: FlushEventArgs): Promise<void> {
    for (const changeSet of uow.getChangeSets()) {
      const entity = changeSet.entity;
      if (!(entity instanceof TenantScopedEntity)) continue;
      const tenant = currentTenant();
      if (changeSet.type === 'create' && !entity.tenantUuid) {
        if (!tenant) throw new MissingTenantError(changeSet.meta.className);
        entity.tenantUuid = tenant.uuid;
        uow.recomputeSingleChangeSet(entity);
      } else if (tenant && entity.tenantUuid !== tenant.uuid) {
        throw new Error(`refusing to write ${changeSet.meta.className} ${entity.uuid} of another tenant`);
      }
    }
  }
}
