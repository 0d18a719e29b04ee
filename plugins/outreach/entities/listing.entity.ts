import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { Pool } from './pool.entity';
import { LISTING_CONTACTS_LISTING_KEY } from './membership-keys';

/**
 * A named list of contacts, filled by `POST /listings/{uuid}/contacts`. Attached to a
 * campaign's pool, its contacts join that pool; it is running while that campaign is
 * active, and then newly added eligible contacts get tasks at once.
 */
@Entity({ tableName: 'listings', triggers: LISTING_CONTACTS_LISTING_KEY.parentTriggers })
export class Listing extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', default: '' })
  description: string & Opt = '';

  @ManyToOne(() => Pool, { mapToPk: true, fieldName: 'pool_uuid', deleteRule: 'set null', nullable: true, index: true })
  poolUuid: string | null = null;
}
