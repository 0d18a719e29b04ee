import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, DataEnvelope, defineRoute } from '../../../core';
import type { Campaign } from '../entities';
import type { CampaignStatus } from '../entities/campaign.entity';
import { missingExecutor } from '../tasks/task-rules';
import { CAMPAIGN_IMPORT_TOPIC, type CampaignImportMessage } from './campaign-import';
import { CampaignParams, CampaignSchema } from './campaign-schemas';
import { createCampaignTasks, hasUnfinishedTasks } from './campaign-tasks';
import { renderCampaign } from './campaign-view';
import { findCampaign } from './find-resources';
import type { CampaignsRuntime } from './campaigns-runtime';

const tags = ['outreach'];

const refuse = (campaign: Campaign, action: string, allowed: readonly CampaignStatus[]) =>
  new ConflictError(`Campaign is ${campaign.status}: only a campaign that is ${allowed.join(' or ')} can be ${action}`);

/**
 * The campaign transitions of decisions.md, each under a `FOR UPDATE` lock of the
 * campaign (pool adds hold it `FOR SHARE`, so they see a transition whole):
 * - activate: `draft -> importing` (the tasks are created in the background, then
 *   `importing -> active`), `paused -> active` (the tasks are created at once);
 * - pause: `active -> paused`, cancelling the waiting tasks;
 * - complete: `active -> in_process` (no new tasks; those made run out) or straight to
 *   `completed` when none is waiting or running, and `in_process -> completed`,
 *   cancelling the tasks still waiting. `in_process` also ends by itself when its last
 *   task settles (campaign-completion.ts).
 * Any other move is refused with 409 naming the current status.
 */
export function registerCampaignTransitions(runtime: CampaignsRuntime): void {
  const { http, bus, taskTypes } = runtime;
  const route = (action: 'activate' | 'pause' | 'complete', summary: string, description: string, handler: (campaign: Campaign, em: EntityManager) => Promise<void>) =>
    http.route(
      defineRoute({
        method: 'POST',
        path: `/api/v1/campaigns/:uuid/${action}`,
        summary,
        description,
        tags,
        params: CampaignParams,
        errors: [404, 409],
        response: DataEnvelope(CampaignSchema),
        handler: async ({ params, em }) => {
          const campaign = await findCampaign(em, params.uuid, 'update');
          await handler(campaign, em);
          await em.flush();
          return { data: await renderCampaign(em, campaign) };
        },
      }),
    );

  route(
    'activate',
    'Activate a campaign',
    'From `draft`: the campaign becomes `importing` and its tasks are created in the background, one per eligible contact of its pools, ' +
      'then it becomes `active` (poll it). From `paused`: it becomes `active` and the tasks are created at once. ' +
      'Eligible: the contact exists and has not opted out, and no task of that pool item is waiting or running (a contact never gets a second one; ' +
      'a contact in two pools gets one per pool). Each task is due now and follows the campaign’s first active rule (the task runner holds it until ' +
      'the rule’s window opens in the contact’s time zone), with the campaign’s agent, task type, task data and priority. ' +
      'While it is `active`, contacts added to its pools (directly or through a listing) get their tasks at once. ' +
      'When the background import fails for good (every retry spent), the campaign goes back to `draft` with no task made and the reason in `last_error`, ' +
      'which the next activation clears. ' +
      '409 from any other status, when no installed executor runs its task type any more, or (from `paused`) when its webhook secret can no longer be decrypted (send `task_data.secret` again).',
    async (campaign, em) => {
      if (campaign.status !== 'draft' && campaign.status !== 'paused') throw refuse(campaign, 'activated', ['draft', 'paused']);
      if (!taskTypes.has(campaign.taskType)) throw new ConflictError(`Campaign cannot run: ${missingExecutor(campaign.taskType)}`);
      campaign.lastError = null;
      if (campaign.status === 'draft') {
        campaign.status = 'importing';
        await bus.publish(CAMPAIGN_IMPORT_TOPIC, { campaign_uuid: campaign.uuid } satisfies CampaignImportMessage, { key: campaign.uuid });
        return;
      }
      await createCampaignTasks(runtime, em, campaign, { all: true });
      campaign.status = 'active';
    },
  );

  route(
    'pause',
    'Pause a campaign',
    'From `active`: it becomes `paused` and its waiting tasks (`pending`, `scheduled`, `queued`) are cancelled, so nothing more runs; tasks already running finish. ' +
      'Contacts added to its pools while it is paused get no task until it is activated again, which creates the tasks anew. 409 from any other status.',
    async (campaign, em) => {
      if (campaign.status !== 'active') throw refuse(campaign, 'paused', ['active']);
      await runtime.tasks.cancelWaiting(em, { campaignUuid: campaign.uuid });
      campaign.status = 'paused';
    },
  );

  route(
    'complete',
    'Complete a campaign',
    'From `active`: it becomes `in_process`: no new tasks are created (contacts added to its pools get none) and the tasks it made run to their end, ' +
      'after which it becomes `completed` by itself (at once when none is waiting or running). ' +
      'From `in_process`: it becomes `completed` now and the tasks still waiting are cancelled. ' +
      '409 from any other status.',
    async (campaign, em) => {
      if (campaign.status === 'active') {
        campaign.status = (await hasUnfinishedTasks(em, campaign.tenantUuid, campaign.uuid)) ? 'in_process' : 'completed';
        return;
      }
      if (campaign.status !== 'in_process') throw refuse(campaign, 'completed', ['active', 'in_process']);
      await runtime.tasks.cancelWaiting(em, { campaignUuid: campaign.uuid });
      campaign.status = 'completed';
    },
  );
}
