import { LockMode } from '@mikro-orm/core';
import type { BusService, Logger } from '../../../core';
import { Campaign } from '../entities';
import { createCampaignTasks, type CampaignTaskServices } from './campaign-tasks';

/** Published when a draft campaign is activated: its tasks are created in the background. */
export const CAMPAIGN_IMPORT_TOPIC = 'outreach.campaign.import';

/** Deliveries of an import message, the first included: the bus retries the earlier ones, the import settles the last. */
export const CAMPAIGN_IMPORT_ATTEMPTS = 5;

const MAX_ERROR_LENGTH = 2000;

export interface CampaignImportMessage {
  campaign_uuid: string;
}

export interface CampaignImportServices extends CampaignTaskServices {
  bus: BusService;
  logger: Logger;
}

/**
 * The `importing` step of an activation: creates the tasks of every eligible contact of
 * the campaign's pools, then makes it `active`, in one transaction. Off the request
 * because a first activation may have to make a task for each of tens of thousands of
 * contacts. The campaign is locked first, so contacts added meanwhile are either seen
 * here or, once it is active, get their tasks from their own add. A redelivered or stale
 * message (the campaign is no longer importing) does nothing.
 *
 * A failed import throws, and the bus retries it with backoff, except on the last
 * attempt: a dead-lettered message would leave the campaign `importing` for ever, with
 * no reason shown and no way out (activate, pause and complete all refuse `importing`).
 * The last attempt undoes the import's writes instead (they ran under a savepoint), puts
 * the campaign back to `draft` with the reason in `last_error` and warns, so the tenant
 * can remove the cause and activate it again.
 */
export function registerCampaignImporter(services: CampaignImportServices): void {
  const { bus, logger } = services;
  bus.consume<CampaignImportMessage>(
    { name: 'import-campaigns', topics: [CAMPAIGN_IMPORT_TOPIC], concurrency: 2, retry: { attempts: CAMPAIGN_IMPORT_ATTEMPTS } },
    async (message, { em }) => {
      const campaignUuid = message.payload?.campaign_uuid;
      // Guarded because a filter on an undefined id would match any campaign.
      if (typeof campaignUuid !== 'string') return;
      const campaign = await em.findOne(Campaign, { uuid: campaignUuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!campaign || campaign.status !== 'importing') return;
      try {
        await em.transactional((savepoint) => createCampaignTasks(services, savepoint, campaign, { all: true }));
      } catch (error) {
        if (message.attempt < CAMPAIGN_IMPORT_ATTEMPTS) throw error;
        const reason = errorMessage(error);
        logger.warn('campaign import failed on its last attempt: the campaign is back to draft', { campaign_uuid: campaign.uuid, attempt: message.attempt, error: reason });
        campaign.status = 'draft';
        campaign.lastError = reason;
        await em.flush();
        return;
      }
      campaign.status = 'active';
      await em.flush();
    },
  );
}

function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
