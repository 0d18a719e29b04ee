import { ConflictError, DataEnvelope, ValidationError, defineRoute, deleteRoute, listRoute, pageWindow, readRoute, type AnyRoute } from '../../../core';
import { Campaign } from '../entities';
import { RULE_BLOCKING_STATUSES } from '../entities/campaign.entity';
import { sealSentSecret } from '../tasks/task-secret';
import { campaignTaskData, checkCampaignMembers, checkExecutorTaskData } from './campaign-checks';
import { setCampaignRules } from './campaign-rules';
import { campaignSecretColumn } from './campaign-secret';
import { CampaignCreateBody, CampaignListQuery, CampaignParams, CampaignPatchBody, CampaignSchema } from './campaign-schemas';
import { renderCampaign, renderCampaigns } from './campaign-view';
import { findCampaign } from './find-resources';
import type { CampaignsRuntime } from './campaigns-runtime';
import { run } from './sql';

const tags = ['outreach'];

/** Campaigns: `/api/v1/campaigns` (its transitions are in campaign-transitions.ts). */
export const campaignRoutes = (runtime: CampaignsRuntime): AnyRoute[] => [createCampaign(runtime), listCampaigns, readCampaign, changeCampaign(runtime), deleteCampaign];

const createCampaign = (runtime: CampaignsRuntime) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/campaigns',
    summary: 'Create a campaign',
    description:
      'A new campaign is `draft`: give it pools (`POST /api/v1/pools`) and contacts, then `POST /api/v1/campaigns/{uuid}/activate`. ' +
      '`task_data` follows the rules of a task of its `task_type` (422 at `task_data.<member>`). ' +
      '`agent_uuid` must be an agent of this tenant and `rule_uuids` rules of this tenant (422 at the member otherwise). ' +
      '`task_type` must be run by an installed executor: `make_call`, `send_message` and the like come with the calls and channels plugins, ' +
      'and until one is installed such a campaign is refused with 422 naming the missing capability (it would make tasks that can never run).',
    tags,
    body: CampaignCreateBody,
    status: 201,
    response: DataEnvelope(CampaignSchema),
    handler: async ({ body, em, tenant }) => {
      const problems = await checkCampaignMembers(em, tenant.uuid, runtime, body);
      const sent = campaignTaskData(body.task_type, body.task_data!, problems);
      if (!problems.task_type) await checkExecutorTaskData(em, runtime, body.task_type, body.agent_uuid, body.task_data!, problems);
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      const campaign = em.create(Campaign, {
        name: body.name.trim(),
        description: body.description!,
        agentUuid: body.agent_uuid,
        taskType: body.task_type,
        taskData: sent.data,
        webhookSecret: sealSentSecret(runtime.secrets, campaignSecretColumn, tenant.uuid, sent.secret ?? null, null),
        priority: body.priority!,
      });
      await em.flush();
      await setCampaignRules(em, tenant.uuid, campaign.uuid, body.rule_uuids!);
      return { data: await renderCampaign(em, campaign) };
    },
  });

const listCampaigns = listRoute({
  path: '/api/v1/campaigns',
  summary: 'List campaigns, newest first',
  description: 'Filters combine: `status`, `agent_uuid`.',
  tags,
  query: CampaignListQuery,
  item: CampaignSchema,
  page: async ({ query, em, tenant }) => {
    const where = {
      ...(query.status ? { status: query.status as Campaign['status'] } : {}),
      ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
    };
    const [campaigns, total] = await em.findAndCount(Campaign, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [await renderCampaigns(em, tenant.uuid, campaigns), total];
  },
});

const readCampaign = readRoute({
  path: '/api/v1/campaigns/:uuid',
  summary: 'Read a campaign',
  tags,
  params: CampaignParams,
  resource: CampaignSchema,
  read: async ({ params, em }) => renderCampaign(em, await findCampaign(em, params.uuid)),
});

const changeCampaign = (runtime: CampaignsRuntime) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/campaigns/:uuid',
    summary: 'Change a campaign',
    description:
      'Members left out keep their value; read-only members (`status` too: it changes through activate, pause and complete) are ignored, ' +
      'so what was read can be sent back. `rule_uuids` replaces the attached rules, in its order. ' +
      'Changes apply to the tasks created from then on; tasks already created keep what they were made with.',
    tags,
    params: CampaignParams,
    body: CampaignPatchBody,
    errors: [404],
    response: DataEnvelope(CampaignSchema),
    handler: async ({ params, body, em, tenant }) => {
      // The members first: their check holds the rules named, which must be taken before the campaign (see checkRuleUuids).
      const problems = await checkCampaignMembers(em, tenant.uuid, runtime, body);
      const campaign = await findCampaign(em, params.uuid, 'update');
      const taskType = body.task_type ?? campaign.taskType;
      // A new type is checked against the data it keeps, as new data against the type.
      const taskChanges = body.task_type !== undefined || body.task_data !== undefined;
      const sent = taskChanges ? campaignTaskData(taskType, body.task_data ?? campaign.taskData, problems) : null;
      if (taskChanges && !problems.task_type) await checkExecutorTaskData(em, runtime, taskType, body.agent_uuid ?? campaign.agentUuid, body.task_data ?? campaign.taskData, problems);
      if (Object.keys(problems).length > 0) throw new ValidationError(problems);
      if (body.name !== undefined) campaign.name = body.name.trim();
      if (body.description !== undefined) campaign.description = body.description;
      if (body.agent_uuid !== undefined) campaign.agentUuid = body.agent_uuid;
      campaign.taskType = taskType;
      if (sent) {
        campaign.taskData = sent.data;
        campaign.webhookSecret = sealSentSecret(runtime.secrets, campaignSecretColumn, campaign.tenantUuid, sent.secret, campaign.webhookSecret);
      }
      if (body.priority !== undefined) campaign.priority = body.priority;
      if (body.rule_uuids !== undefined) {
        await setCampaignRules(em, tenant.uuid, campaign.uuid, body.rule_uuids);
        // The rules are not a column of the campaign: mark it changed all the same.
        campaign.updatedAt = new Date();
      }
      await em.flush();
      return { data: await renderCampaign(em, campaign) };
    },
  });

const deleteCampaign = deleteRoute({
  path: '/api/v1/campaigns/:uuid',
  summary: 'Delete a campaign',
  description:
    'Only a `draft`, `paused` or `completed` campaign (none of its tasks is waiting then); a running one (`importing`, `active`, `in_process`) answers 409: ' +
    'pause or complete it first. Its pools and their items go with it; listings attached to its pools stay, unattached. Its past tasks stay as history.',
  tags,
  params: CampaignParams,
  errors: [404, 409],
  message: 'Campaign deleted',
  remove: async ({ params, em, tenant }) => {
    // Deleting sets the pool of its pools' listings to null. An upload to such a listing holds the listing, then
    // waits for the campaign: the listings are taken first here too, so neither waits for what the other holds.
    await run(em, 'select l.uuid from listings l join pools p on p.uuid = l.pool_uuid where l.tenant_uuid = ? and p.campaign_uuid = ? for update of l', [
      tenant.uuid,
      params.uuid,
    ]);
    const campaign = await findCampaign(em, params.uuid, 'update');
    if (RULE_BLOCKING_STATUSES.includes(campaign.status)) {
      throw new ConflictError(`Campaign is ${campaign.status}: only a draft, paused or completed campaign can be deleted`);
    }
    await em.nativeDelete(Campaign, { uuid: campaign.uuid });
  },
});
