import { ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { newUuid } from './uuid';
import { Tenant } from '../tenancy/tenant.entity';

/**
 * Base class of every tenant-owned entity. The kernel's `tenant` filter scopes every
 * query of a subclass to the current tenant, and `tenantUuid` is filled in from the
 * current tenant when the entity is first flushed, so plugin code never handles it.
 */
export abstract class TenantScopedEntity {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  @ManyToOne(() => Tenant, { mapToPk: true, fieldName: 'tenant_uuid', deleteRule: 'cascade', index: true })
  tenantUuid!: string & Opt;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}

export function isTenantScoped(entity: Function): boolean {
  return entity.prototype instanceof TenantScopedEntity;
}
