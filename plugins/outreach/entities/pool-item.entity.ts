import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { POOL_ITEMS_POOL_KEY } from './membership-keys';

/** A contact in a pool. `contactUuid` is a plain column: contacts belong to the contacts plugin. */
@Entity({ tableName: 'pool_items', triggers: POOL_ITEMS_POOL_KEY.childTriggers })
// Forgetting a deleted contact finds its memberships in every pool and listing.
@Index({ name: 'pool_items_contact_uuid_index', properties: ['contactUuid'] })
@Unique({ name: 'pool_items_pool_uuid_contact_uuid_unique', properties: ['poolUuid', 'contactUuid'] })
export class PoolItem extends TenantScopedChildEntity {
  /** Its pool: a foreign key checked once per statement, with `on delete cascade` (the outreach migration's `statementForeignKey`). */
  @Property({ type: 'uuid' })
  poolUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;
}
