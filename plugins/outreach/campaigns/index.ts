import { registerCampaignCompletion } from './campaign-completion';
import { registerCampaignImporter } from './campaign-import';
import { campaignRoutes } from './campaign-routes';
import type { CampaignsRuntime } from './campaigns-runtime';
import { registerCampaignTransitions } from './campaign-transitions';
import { listingRoutes } from './listing-routes';
import { poolRoutes } from './pool-routes';
import { ruleRoutes } from './rule-routes';

/** Rules, campaigns (with their transitions), pools and pool items, listings and their contacts. */
export function registerCampaigns(runtime: CampaignsRuntime): void {
  for (const route of [...ruleRoutes, ...campaignRoutes(runtime)]) runtime.http.route(route);
  registerCampaignTransitions(runtime);
  for (const route of [...poolRoutes(runtime), ...listingRoutes(runtime)]) runtime.http.route(route);
  registerCampaignImporter(runtime);
  registerCampaignCompletion(runtime.bus);
}
