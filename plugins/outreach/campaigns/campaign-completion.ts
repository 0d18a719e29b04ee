import { LockMode } from '@mikro-orm/core';
import { findByUuid, type BusService } from '../../../core';
import { Campaign } from '../entities';
import { TASK_TOPICS, type TaskEvent } from '../tasks/task-topics';
import { hasUnfinishedTasks } from './campaign-tasks';

/**
 * The end of `in_process`: when a campaign's task settles (completed, failed, expired)
 * and none of its tasks is waiting or running any more, the campaign is `completed`.
 * Most settled tasks belong to campaigns that are not completing: those are dismissed
 * on a plain read, and only an `in_process` campaign is locked and counted.
 */
export function registerCampaignCompletion(bus: BusService): void {
  const topics = [TASK_TOPICS.completed, TASK_TOPICS.failed, TASK_TOPICS.expired];
  bus.consume<TaskEvent>({ name: 'complete-campaigns', topics, concurrency: 2 }, async (message, { em }) => {
    const campaignUuid = message.payload?.task?.campaign_uuid;
    if (typeof campaignUuid !== 'string') return;
    const seen = await findByUuid(em, Campaign, campaignUuid);
    if (seen?.status !== 'in_process') return;
    const campaign = await em.findOne(Campaign, { uuid: campaignUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (campaign?.status !== 'in_process' || (await hasUnfinishedTasks(em, campaign.tenantUuid, campaign.uuid))) return;
    campaign.status = 'completed';
    await em.flush();
  });
}
