import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretsService } from '../../../core';
import type { ContactDirectory } from '../../contacts';
import type { Campaign } from '../entities';
import type { NewTask, TaskScheduler } from '../tasks/task-scheduler';
import { governingRule } from './campaign-rules';
import { taskSecretOf } from './campaign-secret';
import { UNFINISHED_TASK_STATUSES, run, sqlList } from './sql';

/** Tasks handed to the scheduler at once: bounded memory, and well under PostgreSQL's 65,535 bind parameters however it inserts them. */
const TASK_BATCH = 1000;

export interface CampaignTaskServices {
  contacts: ContactDirectory;
  tasks: TaskScheduler;
  secrets: SecretsService;
}

/** Which pool items to look at: the campaign's whole audience, or contacts just added to one pool. */
export type PoolItemScope = { all: true } | { poolUuid: string; contactUuids: readonly string[] };

interface PoolItemRow {
  pool_uuid: string;
  contact_uuid: string;
}

/**
 * Creates a task for each eligible pool item of the campaign in `scope` and returns how
 * many it created. A pool item is eligible when its contact exists and has not opted
 * out, and no task of that pool item is still waiting or running: so re-running this
 * (a resumed campaign, a contact added twice) never doubles a contact's work, while a
 * contact in two pools gets one task per pool (each pool item is worked, and cancelled,
 * on its own). The tasks are due now: the task runner holds each one until its rule's
 * window opens (in the contact's time zone, read when it runs). They follow the campaign's first active rule and carry its agent, type,
 * data, secret and priority, and the pool they work. A secret that no longer opens is a
 * ConflictError (campaign-secret.ts): no task is made without it.
 *
 * One query finds the pool items without work (set-based, on `tasks (pool_uuid,
 * contact_uuid)`); then, per batch, one query reads the contacts and one call creates
 * the tasks, all in the caller's transaction.
 */
export async function createCampaignTasks(
  { contacts, tasks, secrets }: CampaignTaskServices,
  em: EntityManager,
  campaign: Campaign,
  scope: PoolItemScope,
): Promise<number> {
  const tenantUuid = campaign.tenantUuid;
  // One JSON parameter, not one per contact: a listing attached to a pool may bring more contacts than PostgreSQL takes parameters.
  const narrowed = 'all' in scope ? '' : ' and pi.pool_uuid = ? and pi.contact_uuid in (select value::uuid from jsonb_array_elements_text(?::jsonb))';
  if (!('all' in scope) && scope.contactUuids.length === 0) return 0;
  const items = await run<PoolItemRow>(
    em,
    'select pi.pool_uuid, pi.contact_uuid from pool_items pi join pools p on p.uuid = pi.pool_uuid ' +
      `where pi.tenant_uuid = ? and p.campaign_uuid = ?${narrowed} ` +
      'and not exists (select 1 from tasks t where t.pool_uuid = pi.pool_uuid and t.contact_uuid = pi.contact_uuid ' +
      `and t.tenant_uuid = pi.tenant_uuid and t.status in (${sqlList(UNFINISHED_TASK_STATUSES)})) ` +
      'order by p.uuid, pi.uuid',
    'all' in scope ? [tenantUuid, campaign.uuid] : [tenantUuid, campaign.uuid, scope.poolUuid, JSON.stringify(scope.contactUuids)],
  );
  if (items.length === 0) return 0;

  const rule = await governingRule(em, tenantUuid, campaign.uuid);
  const webhookSecret = taskSecretOf(secrets, campaign);
  const scheduledAt = new Date();
  let created = 0;
  for (let start = 0; start < items.length; start += TASK_BATCH) {
    const batch = items.slice(start, start + TASK_BATCH);
    const people = await contacts.get([...new Set(batch.map((item) => item.contact_uuid))]);
    const work: NewTask[] = [];
    for (const item of batch) {
      const contact = people.get(item.contact_uuid);
      // A deleted contact leaves its pool items behind (no foreign key across plugins): nobody to reach.
      if (!contact || contact.opted_out) continue;
      work.push({
        type: campaign.taskType,
        title: campaign.name,
        agentUuid: campaign.agentUuid,
        contactUuid: item.contact_uuid,
        campaignUuid: campaign.uuid,
        poolUuid: item.pool_uuid,
        ruleUuid: rule?.uuid ?? null,
        priority: campaign.priority,
        taskData: campaign.taskData,
        webhookSecret,
        scheduledAt,
      });
    }
    if (work.length > 0) created += (await tasks.create(em, work)).length;
  }
  return created;
}

/** Whether any task of the campaign is still waiting or running. */
export async function hasUnfinishedTasks(em: EntityManager, tenantUuid: string, campaignUuid: string): Promise<boolean> {
  const rows = await run(
    em,
    `select 1 from tasks where tenant_uuid = ? and campaign_uuid = ? and status in (${sqlList(UNFINISHED_TASK_STATUSES)}) limit 1`,
    [tenantUuid, campaignUuid],
  );
  return rows.length > 0;
}
