import type { HttpService } from '../../../core';
import type { ConversationsSettings } from '../conversations-config';
import { exportPolicyRoutes } from './export-policy-routes';
import { registerMessageExportRoute } from './message-export-route';

/** `GET /api/v1/analytics/messages` and the workspace's export policy (`/api/v1/settings/message-export`). */
export function registerMessageExport(http: HttpService, settings: ConversationsSettings): void {
  // The spec's range is 1-1000; a configured maximum of 0 would leave no valid limit.
  registerMessageExportRoute(http, Math.max(1, settings.exportMaxLimit));
  for (const route of exportPolicyRoutes) http.route(route);
}
