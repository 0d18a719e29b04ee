import type { BusService, HttpService, Logger, SecretsService } from '../../../core';
import type { AgentDirectory } from '../../agents';
import type { ContactDirectory } from '../../contacts';
import type { TaskScheduler } from '../tasks/task-scheduler';
import { registerCampaignCompletion } from './campaign-completion';
import { registerCampaignImporter } from './campaign-import';
import { registerCampaignRoutes } from './campaign-routes';
import { registerCampaignTransitions } from './campaign-transitions';
import { registerListingRoutes } from './listing-routes';
import { registerPoolRoutes } from './pool-routes';
import { registerRuleRoutes } from './rule-routes';

export interface CampaignsRuntime {
  http: HttpService;
  bus: BusService;
  logger: Logger;
  secrets: SecretsService;
  agents: AgentDirectory;
  contacts: ContactDirectory;
  tasks: TaskScheduler;
  /** Task types that have an executor: a campaign of another type is refused. */
  taskTypes: ReadonlySet<string>;
}

/** Rules, campaigns (with their transitions), pools and pool items, listings and their contacts. */
export function registerCampaigns(runtime: CampaignsRuntime): void {
  registerRuleRoutes(runtime.http);
  registerCampaignRoutes(runtime);
  registerCampaignTransitions(runtime);
  registerPoolRoutes(runtime);
  registerListingRoutes(runtime);
  registerCampaignImporter(runtime);
  registerCampaignCompletion(runtime.bus);
}
