import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Campaign } from './campaign.entity';
import { POOL_ITEMS_POOL_KEY } from './membership-keys';

/** One of a campaign's working sets of contacts. */
@Entity({ tableName: 'pools', triggers: POOL_ITEMS_POOL_KEY.parentTriggers })
export class Pool extends TenantScopedEntity {
  @ManyToOne(() => Campaign, { mapToPk: true, fieldName: 'campaign_uuid', deleteRule: 'cascade', index: true })
  campaignUuid!: string;

  @Property({ type: 'text' })
  name!: string;
}
