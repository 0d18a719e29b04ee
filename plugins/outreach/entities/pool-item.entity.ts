import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { Pool } from './pool.entity';

/** A contact in a pool. `contactUuid` is a plain column: contacts belong to the contacts plugin. */
@Entity({ tableName: 'pool_items' })
// Forgetting a deleted contact finds its memberships in every pool and listing.
@Index({ name: 'pool_items_contact_uuid_index', properties: ['contactUuid'] })
@Unique({ name: 'pool_items_pool_uuid_contact_uuid_unique', properties: ['poolUuid', 'contactUuid'] })
export class PoolItem extends TenantScopedChildEntity {
  @ManyToOne(() => Pool, { mapToPk: true, fieldName: 'pool_uuid', deleteRule: 'cascade' })
  poolUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;
}
