import { Entity, ManyToOne, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Campaign } from './campaign.entity';
import { OutreachRule } from './outreach-rule.entity';

/** A rule attached to a campaign. */
@Entity({ tableName: 'campaign_rules' })
@Unique({ name: 'campaign_rules_campaign_uuid_rule_uuid_unique', properties: ['campaignUuid', 'ruleUuid'] })
export class CampaignRule extends TenantScopedEntity {
  @ManyToOne(() => Campaign, { mapToPk: true, fieldName: 'campaign_uuid', deleteRule: 'cascade' })
  campaignUuid!: string;

  @ManyToOne(() => OutreachRule, { mapToPk: true, fieldName: 'rule_uuid', deleteRule: 'cascade', index: true })
  ruleUuid!: string;
}
