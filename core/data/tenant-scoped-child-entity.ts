import { Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from './tenant-scoped-entity';

/**
 * A tenant-scoped row that belongs to a parent row of the same tenant, through a foreign
 * key to that parent that cascades deletes (a `ManyToOne` with `deleteRule: 'cascade'`,
 * or a `statementForeignKey` for rows written a thousand at a time: a listing's
 * contacts, a pool's items).
 * It keeps `tenant_uuid`, so the tenant filter and stamping work as for any tenant-scoped
 * entity, but with no foreign key or index of its own on it: deleting the tenant deletes
 * the parent, which deletes these rows; and a bulk insert of thousands of them would
 * otherwise check the tenants table once per row. Queries reach these rows through the
 * parent's key, so index that (with the tenant when a query needs both).
 */
export abstract class TenantScopedChildEntity extends TenantScopedEntity {
  @Property({ type: 'uuid', fieldName: 'tenant_uuid' })
  declare tenantUuid: string & Opt;
}
