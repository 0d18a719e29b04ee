import type { EntityManager } from '@mikro-orm/postgresql';
import type { Campaign } from '../entities';
import { publicTaskData } from '../tasks/task-view';
import type { CampaignJson } from './campaign-schemas';
import { run } from './sql';

interface CampaignExtras {
  ruleUuids: string[];
  poolCount: number;
  contactCount: number;
}

const campaignJson = (campaign: Campaign, extras: CampaignExtras): CampaignJson => ({
  uuid: campaign.uuid,
  name: campaign.name,
  description: campaign.description,
  agent_uuid: campaign.agentUuid,
  status: campaign.status,
  task_type: campaign.taskType as CampaignJson['task_type'],
  task_data: publicTaskData(campaign.taskData, campaign.webhookSecret),
  priority: campaign.priority,
  rule_uuids: extras.ruleUuids,
  pool_count: extras.poolCount,
  contact_count: extras.contactCount,
  last_error: campaign.lastError,
  created_at: campaign.createdAt.toISOString(),
  updated_at: campaign.updatedAt.toISOString(),
});

/** The campaigns as the API shows them: their rules (in attachment order) and pool counts, in two queries for the whole page. */
export async function renderCampaigns(em: EntityManager, tenantUuid: string, campaigns: readonly Campaign[]): Promise<CampaignJson[]> {
  if (campaigns.length === 0) return [];
  const uuids = campaigns.map((campaign) => campaign.uuid);
  const rules = await run<{ campaign_uuid: string; rule_uuid: string }>(
    em,
    'select campaign_uuid, rule_uuid from campaign_rules where tenant_uuid = ? and campaign_uuid = any(array[?]::uuid[]) order by uuid',
    [tenantUuid, uuids],
  );
  const counts = await run<{ campaign_uuid: string; pools: string | number; contacts: string | number }>(
    em,
    'select p.campaign_uuid, count(distinct p.uuid) as pools, count(pi.uuid) as contacts from pools p ' +
      'left join pool_items pi on pi.pool_uuid = p.uuid where p.tenant_uuid = ? and p.campaign_uuid = any(array[?]::uuid[]) group by p.campaign_uuid',
    [tenantUuid, uuids],
  );
  const countsOf = new Map(counts.map((row) => [row.campaign_uuid, row]));
  return campaigns.map((campaign) => {
    const count = countsOf.get(campaign.uuid);
    return campaignJson(campaign, {
      ruleUuids: rules.filter((row) => row.campaign_uuid === campaign.uuid).map((row) => row.rule_uuid),
      poolCount: Number(count?.pools ?? 0),
      contactCount: Number(count?.contacts ?? 0),
    });
  });
}

export async function renderCampaign(em: EntityManager, campaign: Campaign): Promise<CampaignJson> {
  const [json] = await renderCampaigns(em, campaign.tenantUuid, [campaign]);
  return json;
}
