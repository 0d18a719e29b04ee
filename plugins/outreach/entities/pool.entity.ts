import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Campaign } from './campaign.entity';

/** One of a campaign's working sets of contacts. */
@Entity({ tableName: 'pools' })
export class Pool extends TenantScopedEntity {
  @ManyToOne(() => Campaign, { mapToPk: true, fieldName: 'campaign_uuid', deleteRule: 'cascade', index: true })
  campaignUuid!: string;

  @Property({ type: 'text' })
  name!: string;
}
